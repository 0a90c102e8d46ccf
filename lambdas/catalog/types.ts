import type { GenericSchema } from 'valibot';
import type { queues } from './queues';
import type { rateLimits } from './rates';

export type { QueueDef } from './queues';

export const roles = ['admin', 'broker', 'partner'] as const;
export type Role = (typeof roles)[number];
export const scopes = [
  'manifests:read',
  'manifests:write',
  'documents:read',
  'documents:write',
  'deliveries:read',
  'deliveries:write',
  'review:read',
  'review:write',
  'webhooks:read',
  'webhooks:write',
  'events:read',
  'orders:read',
  'orders:write',
  'shipping:read',
  'shipping:write',
  'customs:read',
  'customs:write',
  'tariff:read',
  'tokens:manage',
  'admin',
] as const;

/**
 * What a token issued before issue 41 could do without naming a scope: the routes that named none
 * then, and the shipping routes its orders scopes opened. A token without `scopesVersion` 2 gets
 * these written out beside its own at its next use (services/auth/request-check.ts), so it keeps
 * exactly what it could do; `admin` only for an admin token (the admin routes needed the role).
 */
export function legacyScopes(own: readonly Scope[], role: Role): Scope[] {
  const opened: Scope[] = ['manifests:read', 'manifests:write', 'documents:read', 'documents:write', 'review:read', 'review:write', 'webhooks:read', 'webhooks:write', 'events:read', 'tariff:read', 'tokens:manage'];
  if (role === 'admin') opened.push('admin');
  if (own.includes('orders:read')) opened.push('shipping:read');
  if (own.includes('orders:write')) opened.push('shipping:write');
  return scopes.filter((s) => own.includes(s) || opened.includes(s));
}
export type Scope = (typeof scopes)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a function's handler touches; the CDK grants exactly these actions and nothing else. */
export interface Access {
  table?: readonly TableAction[];
  bucket?: readonly { name: BucketName; actions: readonly BucketAction[] }[];
  queues?: readonly { name: QueueName; actions: readonly QueueAction[] }[];
  /** May put events on the domain bus. */
  bus?: boolean;
  /** May create one-time EventBridge Scheduler schedules (durable timers beyond SQS's 15 min). */
  scheduler?: boolean;
  /** May start runs of the manifest pipeline's state machine. */
  pipeline?: boolean;
  /** May call the configured Amazon Bedrock model (tariff classification). */
  bedrock?: boolean;
  /** The accounts' marketplace credentials in Secrets Manager: `read` them, or `write` (and read) them. */
  secrets?: 'read' | 'write';
  /**
   * The signing secrets kept sealed in table items under the stage's secrets key (issue 31,
   * lambdas/infra/sealed-secrets.ts), by kind: `seal` encrypts one (create, rotate, migrate; also
   * the read-through sealing of a secret stored in clear before), `open` decrypts one (sign a
   * webhook delivery, verify X-Signature). Each kind is its own grant, conditioned on the
   * encryption context's purpose: a function reaches only the kinds it names here.
   */
  signingSecrets?: { readonly [K in SigningSecretKind]?: readonly SealAction[] };
  /** Answers or takes page cursors, signed with the stage's cursor key (lambdas/infra/cursors.ts): reads that secret. */
  cursors?: boolean;
  /** Names the files bucket (BUCKET_NAME) without any grant on it: the console's policy lets previews fetch its signed URLs. */
  bucketOrigin?: boolean;
}

/**
 * The kinds of sealed signing secret, webhook subscriptions' and partner accounts' (X-Signature),
 * and the `purpose` of each one's encryption context (what its IAM grant is conditioned on).
 */
export const signingSecretPurposes = { webhook: 'webhook-signing', manifest: 'manifest-signing' } as const;
export type SigningSecretKind = keyof typeof signingSecretPurposes;
export type SealAction = 'seal' | 'open';
/**
 * DynamoDB IAM actions. There is no `TransactWriteItems` (or `TransactGetItems`) IAM action: each
 * write of a transaction is authorized as its item action (Put as PutItem, Update as UpdateItem,
 * Delete as DeleteItem, ConditionCheck as ConditionCheckItem, a transactional Get as GetItem), so a
 * function that writes in transactions lists the item actions its transactions hold.
 */
export type TableAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem' | 'ConditionCheckItem' | 'Scan';
export type BucketAction = 'GetObject' | 'PutObject' | 'DeleteObject' | 'ListBucket';
export type QueueAction = 'SendMessage';

/** `files`: documents, uploads, exports; `proofs`: the proofs of delivery, under Object Lock (issue 44). */
export type BucketName = 'files' | 'proofs';

export interface RouteDef {
  /** Unique name; becomes the function's logical id and name suffix. */
  id: string;
  method: HttpMethod;
  /** Relative to /api, in API Gateway syntax: `/v1/admin/tokens/{id}`. */
  path: string;
  /** The path is absolute, not under /api (the dashboard's pages). */
  root?: boolean;
  /** Module under lambdas/ (no extension) exporting `handler`. */
  handler: string;
  summary: string;
  tag: string;
  /** `public` needs no token; otherwise a valid token plus any roles/scopes listed. */
  auth: 'public' | { roles?: readonly Role[]; scopes?: readonly Scope[] };
  /** Rate-limit group (a key of `rateLimits`); limited per token, per group, per minute. */
  rate?: RateGroup;
  uses?: Access;
  /** The schemas the handler validates with: it reads them from this entry (`route(xRoutes.Id.schemas, ...)`); openapi.json is written from them. */
  schemas?: { body?: GenericSchema; query?: GenericSchema; params?: GenericSchema };
  /**
   * A body the handler reads raw instead of as JSON (a CSV file, a multipart form), for
   * openapi.json: its media type and what it holds (`file` fields as binary strings).
   */
  rawBody?: { contentType: string; description: string; schema?: GenericSchema; files?: readonly string[] };
  /** Success status the route answers with, for openapi.json (default 200). */
  successStatus?: number;
  /**
   * What the route answers: not written in the area's routes.ts (a handler imports its entry, and
   * must not carry the answer schemas) but joined by id from `lambdas/http/<area>/responses.ts`
   * where openapi.json is made (`documentedRoutes` in http/system/openapi.ts), which the
   * integration suite's contract check reads.
   */
  responses?: RouteResponses;
  timeoutSeconds?: number;
  memoryMb?: number;
  /**
   * Served by the local twin only: the CDK deploys no function or route for it, and in AWS the
   * fallback answers 404. For what only makes sense in one process (the twin's metrics tally).
   */
  twinOnly?: true;
}

/** One answer of a route: a JSON body with its schema, a file or page, or a redirect. */
export interface ResponseDef {
  description: string;
  /** The whole JSON body (envelope included). */
  body?: GenericSchema;
  /** A file or page instead of JSON: its content types. */
  file?: readonly string[];
  /** Headers of this answer, beyond the ones every answer carries. */
  headers?: Readonly<Record<string, { description: string; type?: 'string' | 'integer' }>>;
  /** A failure's machine codes (the body's `error`). */
  errors?: readonly string[];
}

/**
 * A route's answers by status: each success, and the failures particular to the route. The ones
 * any route of its kind can give (401 without a token, 403 without the role, 404 for a path id,
 * 422 for a schema, 429 over the rate, 500) are added by the openapi function.
 */
export interface RouteResponses {
  answers: Readonly<Record<number, ResponseDef>>;
  /** Request headers the route reads. */
  requestHeaders?: readonly ('Idempotency-Key' | 'X-Signature')[];
}

export interface WorkerDef {
  id: string;
  handler: string;
  summary: string;
  /** The queue it consumes (SQS event source in AWS, the persisted job dispatcher on the twin). */
  queue: QueueName;
  batchSize?: number;
  /** At most this many invocations at once (the SQS event source's maximum concurrency, 2 or more). */
  maxConcurrency?: number;
  uses?: Access;
  timeoutSeconds?: number;
  memoryMb?: number;
}

/** One task of the manifest pipeline's state machine (a Lambda the state machine invokes). */
export interface PipelineTaskDef {
  id: string;
  handler: string;
  summary: string;
  uses?: Access;
  timeoutSeconds?: number;
  memoryMb?: number;
}

/** Domain events routed from the bus to a queue (an EventBridge rule in AWS). */
export interface EventRuleDef {
  id: string;
  eventTypes: readonly string[];
  queue: QueueName;
}

export type QueueName = keyof typeof queues;
export type RateGroup = keyof typeof rateLimits;
