import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * The synthesized cloud assembly (what `cdk synth` writes to cdk.out) read the way CloudFormation
 * would deploy it: every stack's template, nested stacks included, with the intrinsic functions
 * the templates use (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::ImportValue, a nested stack's
 * Parameters) resolved to the physical names the cloud lane gives the resources. Nothing about the
 * resources is written here a second time: names, properties and wiring all come from the
 * templates.
 */

/** moto's default account; LocalStack's is 000000000000 (`Endpoints.account`). */
export const motoAccount = '123456789012';

export interface Resource {
  Type: string;
  Properties?: Record<string, any>;
  Metadata?: Record<string, any>;
  DependsOn?: string | string[];
}

export interface Template {
  Resources: Record<string, Resource>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown } }>;
  Parameters?: Record<string, unknown>;
}

export interface LoadedStack {
  /** The stack's name (a nested stack: its parent's name and its logical id). */
  name: string;
  template: Template;
  /** A nested stack's parameter values, still as its parent's expressions. */
  parent?: { stack: LoadedStack; parameters: Record<string, unknown> };
}

/** One resource of the deployment, with the stack it belongs to. */
export interface StackResource {
  stack: LoadedStack;
  logicalId: string;
  resource: Resource;
}

export interface Endpoints {
  region: string;
  /** The account the engines answer for (moto 123456789012, LocalStack 000000000000). */
  account: string;
}

/** The cloud assembly in `dir`: its top-level stacks (manifest.json) and their nested stacks. */
export function loadAssembly(dir: string): LoadedStack[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { artifacts: Record<string, { type: string; properties?: { templateFile?: string } }> };
  const stacks: LoadedStack[] = [];
  const add = (stack: LoadedStack) => {
    stacks.push(stack);
    for (const [id, r] of Object.entries(stack.template.Resources)) {
      if (r.Type !== 'AWS::CloudFormation::Stack') continue;
      const file = r.Metadata?.['aws:asset:path'] as string | undefined;
      if (!file || !existsSync(join(dir, file))) throw new Error(`nested stack ${id} of ${stack.name}: its template (${file}) is not in ${dir}`);
      add({ name: `${stack.name}-${id}`, template: JSON.parse(readFileSync(join(dir, file), 'utf8')), parent: { stack, parameters: r.Properties?.Parameters ?? {} } });
    }
  };
  for (const [name, a] of Object.entries(manifest.artifacts)) {
    if (a.type !== 'aws:cloudformation:stack') continue;
    add({ name, template: JSON.parse(readFileSync(join(dir, a.properties!.templateFile!), 'utf8')) });
  }
  // Exports before imports: a stack that exports comes first (the data stack before the api stack).
  return stacks;
}

/** Resolves references across a deployment's stacks to the lane's physical names. */
export class Deployment {
  readonly stacks: LoadedStack[];
  private readonly exports = new Map<string, { stack: LoadedStack; value: unknown }>();
  /** Physical names fixed once created (a queue's URL, the ARN a state machine got). */
  private readonly assigned = new Map<string, string>();

  constructor(
    readonly assemblyDir: string,
    readonly endpoints: Endpoints,
  ) {
    this.stacks = loadAssembly(assemblyDir);
    for (const stack of this.stacks) {
      for (const out of Object.values(stack.template.Outputs ?? {})) {
        if (out.Export) this.exports.set(String(this.resolve(stack, out.Export.Name)), { stack, value: out.Value });
      }
    }
  }

  /**
   * The assembly in `dir` as the next deploy of this one: the resources both have keep the
   * physical names this one was given (a queue's URL, a key's id), as an update of the same
   * stacks keeps them.
   */
  successor(dir: string): Deployment {
    const next = new Deployment(dir, this.endpoints);
    for (const [k, v] of this.assigned) next.assigned.set(k, v);
    return next;
  }

  /** Every resource of a type, in every stack. */
  resources(type: string): StackResource[] {
    return this.stacks.flatMap((stack) =>
      Object.entries(stack.template.Resources)
        .filter(([, r]) => r.Type === type)
        .map(([logicalId, resource]) => ({ stack, logicalId, resource })),
    );
  }

  /** A resource's properties with every intrinsic resolved. */
  properties(r: StackResource): Record<string, any> {
    return this.resolve(r.stack, r.resource.Properties ?? {}) as Record<string, any>;
  }

  /** Fixes the physical id the lane created a resource under (`Ref` then answers it). */
  assign(r: StackResource, physicalId: string): void {
    this.assigned.set(`${r.stack.name}/${r.logicalId}`, physicalId);
  }

  resolve(stack: LoadedStack, node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.resolve(stack, n));
    if (!node || typeof node !== 'object') return node;
    const o = node as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const [k] = keys;
      const v = o[k];
      if (k === 'Ref') return this.ref(stack, v as string);
      if (k === 'Fn::GetAtt') {
        const [id, attr] = Array.isArray(v) ? (v as string[]) : String(v).split('.');
        return this.getAtt(stack, id, attr);
      }
      if (k === 'Fn::Join') {
        const [delimiter, parts] = v as [string, unknown[]];
        return (this.resolve(stack, parts) as unknown[]).join(delimiter);
      }
      if (k === 'Fn::Sub') {
        const [text, vars] = (Array.isArray(v) ? v : [v, {}]) as [string, Record<string, unknown>];
        const resolvedVars = this.resolve(stack, vars) as Record<string, unknown>;
        return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
          if (name in resolvedVars) return String(resolvedVars[name]);
          if (name.includes('.')) {
            const [id, attr] = name.split('.');
            return String(this.getAtt(stack, id, attr));
          }
          return String(this.ref(stack, name));
        });
      }
      if (k === 'Fn::ImportValue') {
        const name = String(this.resolve(stack, v));
        const exported = this.exports.get(name);
        if (!exported) throw new Error(`${stack.name}: Fn::ImportValue ${name} is exported by no stack`);
        return this.resolve(exported.stack, exported.value);
      }
      if (k === 'Fn::Select') {
        const [index, list] = v as [unknown, unknown];
        return (this.resolve(stack, list) as unknown[])[Number(this.resolve(stack, index))];
      }
      if (k === 'Fn::Split') {
        const [delimiter, text] = v as [string, unknown];
        return String(this.resolve(stack, text)).split(delimiter);
      }
      if (k.startsWith('Fn::')) throw new Error(`${stack.name}: the lane does not resolve ${k}`);
    }
    return Object.fromEntries(Object.entries(o).map(([key, value]) => [key, this.resolve(stack, value)]));
  }

  private ref(stack: LoadedStack, name: string): unknown {
    switch (name) {
      case 'AWS::AccountId':
        return this.endpoints.account;
      case 'AWS::Region':
        return this.endpoints.region;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return stack.name;
      case 'AWS::NoValue':
        return undefined;
    }
    if (stack.template.Parameters && name in stack.template.Parameters) {
      if (!stack.parent) throw new Error(`${stack.name}: parameter ${name} has no value`);
      return this.resolve(stack.parent.stack, stack.parent.parameters[name]);
    }
    const r = stack.template.Resources[name];
    if (!r) throw new Error(`${stack.name}: Ref ${name} names no resource`);
    return this.physicalId({ stack, logicalId: name, resource: r });
  }

  /** What `Ref` answers for a resource, as CloudFormation documents it for each type. */
  physicalId(r: StackResource): string {
    const fixed = this.assigned.get(`${r.stack.name}/${r.logicalId}`);
    if (fixed) return fixed;
    const p = (key: string) => {
      const v = r.resource.Properties?.[key];
      return v === undefined ? undefined : String(this.resolve(r.stack, v));
    };
    const generated = `${r.stack.name}-${r.logicalId}`.slice(0, 63);
    switch (r.resource.Type) {
      case 'AWS::DynamoDB::Table':
        return p('TableName') ?? generated;
      case 'AWS::S3::Bucket':
        return p('BucketName') ?? generated.toLowerCase();
      case 'AWS::SQS::Queue':
        throw new Error(`queue ${r.logicalId}: its URL is known once it is created`);
      case 'AWS::KMS::Key':
        throw new Error(`KMS key ${r.logicalId}: its id is known once it is created`);
      case 'AWS::KMS::Alias':
        return p('AliasName') ?? generated;
      case 'AWS::Events::EventBus':
      case 'AWS::Scheduler::ScheduleGroup':
      case 'AWS::Scheduler::Schedule':
      case 'AWS::Events::Rule':
        return p('Name') ?? generated;
      case 'AWS::IAM::Role':
        return p('RoleName') ?? generated;
      case 'AWS::CloudWatch::Alarm':
      case 'AWS::CloudWatch::CompositeAlarm':
        return p('AlarmName') ?? generated;
      case 'AWS::CodeDeploy::Application':
        return p('ApplicationName') ?? generated;
      case 'AWS::CodeDeploy::DeploymentGroup':
        return p('DeploymentGroupName') ?? generated;
      case 'AWS::Lambda::Function':
        return p('FunctionName') ?? generated;
      // A version's and an alias's Ref is its ARN; the lane runs the function's one code (a version is always 1).
      case 'AWS::Lambda::Version':
        return `arn:aws:lambda:${this.endpoints.region}:${this.endpoints.account}:function:${p('FunctionName')}:1`;
      case 'AWS::Lambda::Alias':
        return `arn:aws:lambda:${this.endpoints.region}:${this.endpoints.account}:function:${p('FunctionName')}:${p('Name')}`;
      case 'AWS::StepFunctions::StateMachine':
        return `arn:aws:states:${this.endpoints.region}:${this.endpoints.account}:stateMachine:${p('StateMachineName') ?? generated}`;
      default:
        // API Gateway ids, log groups, policies: an id of the lane's own.
        return r.logicalId;
    }
  }

  /** The URL of the queue an ARN names (created by provision). */
  queueUrlOf(arn: string): string {
    const r = this.resources('AWS::SQS::Queue').find((q) => this.getAtt(q.stack, q.logicalId, 'Arn') === arn);
    if (!r) throw new Error(`no queue of the template has the ARN ${arn}`);
    return this.physicalId(r);
  }

  queueName(r: StackResource): string {
    const name = r.resource.Properties?.QueueName;
    return name ? String(this.resolve(r.stack, name)) : `${r.stack.name}-${r.logicalId}`.slice(0, 80);
  }

  private getAtt(stack: LoadedStack, logicalId: string, attr: string): unknown {
    const resource = stack.template.Resources[logicalId];
    if (!resource) throw new Error(`${stack.name}: Fn::GetAtt ${logicalId}.${attr} names no resource`);
    const r = { stack, logicalId, resource };
    const id = this.physicalId(r);
    const { region } = this.endpoints;
    const key = `${resource.Type}.${attr}`;
    switch (key) {
      case 'AWS::SQS::Queue.Arn':
        return `arn:aws:sqs:${region}:${this.endpoints.account}:${this.queueName(r)}`;
      case 'AWS::SQS::Queue.QueueName':
        return this.queueName(r);
      case 'AWS::SQS::Queue.QueueUrl':
        return id;
      case 'AWS::KMS::Key.Arn':
        return `arn:aws:kms:${region}:${this.endpoints.account}:key/${id}`;
      case 'AWS::KMS::Key.KeyId':
        return id;
      case 'AWS::Lambda::Function.Arn':
        return `arn:aws:lambda:${region}:${this.endpoints.account}:function:${id}`;
      case 'AWS::IAM::Role.Arn':
        return `arn:aws:iam::${this.endpoints.account}:role/${id}`;
      case 'AWS::DynamoDB::Table.Arn':
        return `arn:aws:dynamodb:${region}:${this.endpoints.account}:table/${id}`;
      case 'AWS::S3::Bucket.Arn':
        return `arn:aws:s3:::${id}`;
      case 'AWS::Events::EventBus.Arn':
        return `arn:aws:events:${region}:${this.endpoints.account}:event-bus/${id}`;
      case 'AWS::Events::EventBus.Name':
        return id;
      case 'AWS::Scheduler::ScheduleGroup.Arn':
        return `arn:aws:scheduler:${region}:${this.endpoints.account}:schedule-group/${id}`;
      case 'AWS::StepFunctions::StateMachine.Arn':
        return id;
      case 'AWS::Logs::LogGroup.Arn':
        return `arn:aws:logs:${region}:${this.endpoints.account}:log-group:${logicalId}:*`;
      case 'AWS::ApiGatewayV2::Api.ApiEndpoint':
        return `https://${id}.execute-api.${region}.amazonaws.com`;
      default:
        throw new Error(`${stack.name}: the lane does not know Fn::GetAtt ${key}`);
    }
  }
}
