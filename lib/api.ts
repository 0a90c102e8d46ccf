import { CfnOutput, Duration, NestedStack, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as xray from 'aws-cdk-lib/aws-xray';
import type { Construct } from 'constructs';
import { authorizer as authorizerDef, fallback as fallbackDef, routes as catalogRoutes, workers as catalogWorkers } from '#catalog';
import type { RouteDef, WorkerDef } from '#catalog/types';
import { apiBase, fullPath, routeKey } from '#catalog/routing';
import { corsPolicy } from '#http/kit/cors';
import { pascal, type DataStack } from './data';
import { CatalogFunction, type FunctionDef } from './functions';
import { ManifestPipeline } from './pipeline';
import { Observability, type WatchedFunction } from './observability';
import { acknowledge } from './nag';
import { ApiEdge, type EdgeStack } from './edge';
import { DriftDetection, driftTargets } from './drift';
import { Rollout, type RolloutKind } from './rollout';
import { SmokeReceiver } from './smoke-receiver';
import type { StageSettings } from './stage';


/**
 * Reserved concurrency where a stage turns it on (lib/stages.ts `reservedConcurrency`), decided in
 * docs/operators/deploy.md ("Throttles and reserved concurrency"). The authorizer runs before every
 * non-public route: its 100 are kept for it whatever floods the rest of the account (about 20 ms
 * a call, so some 5,000 uncached authorizations a second, ten times the stage throttle). Each
 * public route and `$default` may run at most 10 at once: their route throttle (prod 50 a second)
 * at 100 ms a call needs 5, so 10 is twice that, and a flood of them cannot take more.
 * In all 100 + 10 per public route + 10; Lambda keeps 100 of the account's quota unreserved, so
 * the build refuses a sum above `accountQuotaAtLeast` - 100 (AWS's default quota is 1,000).
 */
export const floodLimits = { authorizer: 100, publicRoute: 10, fallback: 10, accountQuotaAtLeast: 1000, unreservedFloor: 100 } as const;

/** The most concurrent invocations an SQS event source makes when its catalog entry names none (2 is SQS's least). */
export const defaultWorkerConcurrency = 5;

export interface ApiStackProps extends StackProps {
  settings: StageSettings;
  data: DataStack;
  corsOrigins: string[];
  /** The us-east-1 stack with the web ACL and certificate, when the stage has edge protection. */
  edge?: EdgeStack;
  /** Overrides for tests; default to the catalog. */
  routes?: RouteDef[];
  workers?: WorkerDef[];
}

/**
 * The stateless half of a stage: one Lambda per catalog route behind an HTTP API (with the
 * catalog's REQUEST authorizer on every non-public route), the `$default` fallback, and one
 * Lambda per queue worker.
 *
 * A route costs seven CloudFormation resources (function, role, policy, log group, permission,
 * integration, route), and a stack may hold 500, so the routes live in nested stacks, one per
 * catalog `tag` (`Routes<Tag>`): the catalog's 78 routes in one stack would be over 550. Grouping
 * by tag, not by position, keeps a route in its stack when others are added or removed (a
 * function that moved between stacks would be created under its fixed name before the old one
 * is deleted, and fail). The API, its stage, the authorizer (which the CDK creates under the API),
 * the fallback, the workers and the pipeline stay in this stack.
 */
export class ApiStack extends Stack {
  readonly api: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  readonly authorizerFunction: CatalogFunction;
  readonly fallbackFunction: CatalogFunction;
  readonly routeFunctions: Record<string, CatalogFunction> = {};
  readonly routes: Record<string, apigwv2.HttpRoute> = {};
  /** The nested stack of each catalog tag's routes. */
  readonly routeStacks: Record<string, NestedStack> = {};
  readonly workerFunctions: Record<string, CatalogFunction> = {};
  readonly pipeline: ManifestPipeline;
  /** How clients reach the API: CloudFront and its web ACL, a custom domain, or execute-api. */
  readonly apiEdge: ApiEdge;
  /** The stage's alarms, their topic and its dashboard (lib/observability.ts). */
  readonly observability: Observability;
  /** The smoke test's webhook receiver, where the stage has one (staging; lib/smoke-receiver.ts). */
  readonly smokeReceiver?: SmokeReceiver;
  /** Each function's CodeDeploy group and rollback alarm, by catalog id (lib/rollout.ts). */
  readonly rollouts: Record<string, Rollout> = {};
  /** The daily drift detection of the stage's stacks (lib/drift.ts). */
  readonly drift: DriftDetection;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { settings, data, corsOrigins } = props;
    // A twin-only route (the twin's metrics tally) has no function in AWS.
    const routeDefs = (props.routes ?? catalogRoutes).filter((r) => !r.twinOnly);
    const workerDefs = props.workers ?? catalogWorkers;
    const httpEnv = { CORS_ORIGINS: corsOrigins.join(',') };
    const make = (fid: string, def: FunctionDef, kind: 'http' | 'worker', environment?: Record<string, string>, scope: Construct = this) =>
      new CatalogFunction(scope, fid, { def, kind, settings, data, environment });
    const routeStack = (tag: string) =>
      (this.routeStacks[tag] ??= new NestedStack(this, `Routes${pascal(tag)}`, { description: `Despacho ${settings.stage}: the ${tag} routes and their functions` }));

    this.api = new apigwv2.HttpApi(this, 'HttpApi', {
      apiName: `${settings.namePrefix}-api`,
      description: `Despacho ${settings.stage} HTTP API`,
      createDefaultStage: false,
      // Behind CloudFront the API answers only on its origin domain (lib/edge.ts): the
      // execute-api address, which the web ACL never sees, answers nothing.
      disableExecuteApiEndpoint: settings.config.edgeProtection,
      corsPreflight: {
        allowOrigins: corsOrigins,
        allowHeaders: [...corsPolicy.allowHeaders],
        allowMethods: corsPolicy.allowMethods.map((m) => apigwv2.CorsHttpMethod[m]),
        exposeHeaders: [...corsPolicy.exposeHeaders],
        maxAge: Duration.seconds(corsPolicy.maxAgeSeconds),
      },
    });

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: settings.logRetention,
      removalPolicy: settings.logRemovalPolicy,
    });
    this.stage = new apigwv2.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: settings.throttle,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            method: '$context.httpMethod',
            path: '$context.path',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            latency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
    });

    this.apiEdge = new ApiEdge(this, 'Edge', { settings, api: this.api, stage: this.stage, edge: props.edge });

    // API Gateway answers a request without the identity source's headers with 401 itself, and
    // keeps the authorizer's answer per credential for the catalog's cache time. The authorizer
    // always allows and passes its verdict on the credential in the context; each route's
    // function answers a denial with the service's own body and judges roles, scopes and rate.
    // Behind CloudFront a request reaches API Gateway only through the origin domain's mutual TLS
    // (lib/edge.ts), and CloudFront always sends the origin header; it stays part of the identity
    // as a second lock: a request without it is answered 401 by API Gateway, never the authorizer.
    const originVerify = this.apiEdge.originVerify;
    this.authorizerFunction = make(authorizerDef.id, authorizerDef, 'http', originVerify ? { ORIGIN_VERIFY: originVerify } : undefined);
    const authorizer = new HttpLambdaAuthorizer(authorizerDef.id, this.authorizerFunction.live, {
      authorizerName: `${settings.namePrefix}-authorizer`,
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      resultsCacheTtl: Duration.seconds(authorizerDef.cacheTtlSeconds),
      identitySource: [...authorizerDef.identitySource, ...(originVerify ? ['$request.header.X-Origin-Verify'] : [])],
    });

    for (const route of routeDefs) {
      const scope = routeStack(route.tag);
      const fn = make(route.id, { ...route, description: `${routeKey(route)}: ${route.summary}` }, 'http', httpEnv, scope);
      const httpRoute = new apigwv2.HttpRoute(scope, `${route.id}Route`, {
        httpApi: this.api,
        routeKey: apigwv2.HttpRouteKey.with(fullPath(route), apigwv2.HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${route.id}Integration`, fn.live),
        authorizer: route.auth === 'public' ? undefined : authorizer,
      });
      if (route.auth === 'public') {
        acknowledge(httpRoute, 'AwsSolutions-APIG4', `${routeKey(route)} is public by design (catalog auth: 'public').`);
      }
      this.routeFunctions[route.id] = fn;
      this.routes[route.id] = httpRoute;
    }

    this.fallbackFunction = make(fallbackDef.id, { ...fallbackDef, description: '$default: 404, or 405 when the path exists with other methods' }, 'http', httpEnv);
    const defaultRoute = new apigwv2.HttpRoute(this, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: apigwv2.HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('FallbackIntegration', this.fallbackFunction.live),
    });
    acknowledge(
      defaultRoute,
      'AwsSolutions-APIG4',
      '$default only answers 404/405 for paths no route matches; it reads no data and needs no caller identity.',
    );
    this.routes.$default = defaultRoute;

    // What no caller identity gates (the public routes and `$default`) gets a tighter throttle of
    // its own, so a flood of it cannot spend the stage's limit, and (where the stage reserves
    // concurrency) runs within a ceiling while the authorizer keeps a floor.
    const publicRoutes = routeDefs.filter((r) => r.auth === 'public');
    // RouteSettings is JSON to the CDK: its keys as CloudFormation spells them.
    const limit = { ThrottlingRateLimit: settings.publicRouteThrottle.rateLimit, ThrottlingBurstLimit: settings.publicRouteThrottle.burstLimit };
    const cfnStage = this.stage.node.defaultChild as apigwv2.CfnStage;
    cfnStage.routeSettings = Object.fromEntries([...publicRoutes.map((r) => [routeKey(r), limit]), ['$default', limit]]);
    // API Gateway refuses settings for a route key it does not have yet.
    for (const r of publicRoutes) this.stage.node.addDependency(this.routes[r.id]);
    this.stage.node.addDependency(defaultRoute);
    if (settings.config.reservedConcurrency) {
      const reserve = (fn: CatalogFunction, n: number) => {
        (fn.fn.node.defaultChild as lambda.CfnFunction).reservedConcurrentExecutions = n;
      };
      reserve(this.authorizerFunction, floodLimits.authorizer);
      reserve(this.fallbackFunction, floodLimits.fallback);
      for (const r of publicRoutes) reserve(this.routeFunctions[r.id], floodLimits.publicRoute);
      const reserved = floodLimits.authorizer + floodLimits.fallback + floodLimits.publicRoute * publicRoutes.length;
      if (reserved > floodLimits.accountQuotaAtLeast - floodLimits.unreservedFloor) {
        throw new Error(`Reserved concurrency ${reserved} leaves less than ${floodLimits.unreservedFloor} unreserved of a ${floodLimits.accountQuotaAtLeast} quota`);
      }
    }

    for (const worker of workerDefs) {
      const queue = data.queues[worker.queue];
      if (!queue) throw new Error(`Worker ${worker.id} consumes unknown queue ${worker.queue}`);
      const fn = make(worker.id, { ...worker, description: `${worker.queue}: ${worker.summary}` }, 'worker');
      const timeout = fn.fn.timeout?.toSeconds() ?? 0;
      if (timeout > queue.def.visibilityTimeoutSeconds) {
        throw new Error(
          `Worker ${worker.id} times out after ${timeout} s, longer than the ${queue.def.visibilityTimeoutSeconds} s visibility timeout of ${worker.queue}`,
        );
      }
      // The event source grants the worker receive/delete on its own queue.
      // Every event source has a ceiling, so a burst of deliveries or syncs cannot take the
      // concurrency the API's functions need (catalog maxConcurrency; 5 when it says none).
      fn.live.addEventSource(new SqsEventSource(queue.queue, { batchSize: worker.batchSize ?? 10, reportBatchItemFailures: true, maxConcurrency: worker.maxConcurrency ?? defaultWorkerConcurrency }));
      this.workerFunctions[worker.id] = fn;
    }

    this.pipeline = new ManifestPipeline(this, 'ManifestPipeline', { settings, data });
    if (settings.tracing) {
      // The stage's share of traces (lib/stages.ts tracingSampleRate) beyond the first each second,
      // for every segment named after the stage's resources (the state machine and SDK-sampled
      // segments; Lambda samples its own invocations at 1 a second and 5%, whatever rules say).
      new xray.CfnSamplingRule(this, 'TraceSampling', {
        samplingRule: {
          ruleName: `${settings.namePrefix}-sampling`.slice(0, 32),
          priority: 1000,
          fixedRate: settings.config.tracingSampleRate,
          reservoirSize: 1,
          serviceName: `${settings.namePrefix}-*`,
          serviceType: '*',
          host: '*',
          httpMethod: '*',
          urlPath: '*',
          resourceArn: '*',
          version: 1,
        },
      });
    }
    for (const worker of workerDefs) if (worker.uses?.pipeline) this.pipeline.allowStart(this.workerFunctions[worker.id]);

    const watched: WatchedFunction[] = [
      ...routeDefs.map((r) => ({ id: r.id, group: r.tag, fn: this.routeFunctions[r.id], scope: this.routeStacks[r.tag] })),
      { id: authorizerDef.id, group: 'api', fn: this.authorizerFunction, scope: this },
      { id: fallbackDef.id, group: 'api', fn: this.fallbackFunction, scope: this },
      ...workerDefs.map((w) => ({ id: w.id, group: 'workers', fn: this.workerFunctions[w.id], scope: this })),
      ...Object.values(this.pipeline.functions).map((fn) => ({ id: fn.node.id, group: 'pipeline', fn, scope: this.pipeline })),
    ];
    // Daily drift detection of the stage's stacks in this region (lib/drift.ts), alarmed in the api area.
    this.drift = new DriftDetection(this, 'DriftDetection', { settings, stacks: driftTargets(settings, this.routeStacks) });
    this.observability = new Observability(this, 'Observability', {
      settings,
      data,
      driftRule: this.drift.rule,
      api: this.api,
      functions: watched,
      stateMachine: this.pipeline.stateMachine,
    });

    // Every function behind its live alias rolls out by its kind's canary, undone by its alarms (lib/rollout.ts).
    const kindOf = (f: WatchedFunction): RolloutKind =>
      f.group === 'workers' ? 'worker' : f.group === 'pipeline' ? 'pipeline' : f.id === authorizerDef.id ? 'authorizer' : 'route';
    for (const f of watched) {
      this.rollouts[f.id] = new Rollout(f.scope, `${f.id}Rollout`, { settings, id: f.id, alias: f.fn.live, kind: kindOf(f), areaAlarmNames: this.observability.rollbackAlarmNames(f) });
    }

    if (settings.config.smokeReceiver) this.smokeReceiver = new SmokeReceiver(this, 'SmokeReceiver', { settings, data });

    new CfnOutput(this, 'ApiUrl', { value: this.apiEdge.url, description: 'Root of the API for clients (every route is under /api; the console and dashboard at the root)' });
    new CfnOutput(this, 'ApiBaseUrl', { value: `${this.apiEdge.url}${apiBase}`, description: 'Base URL for clients (DESPACHO_URL)' });
  }
}
