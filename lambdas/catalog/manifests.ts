import type { RouteDef, WorkerDef } from './types';
import { BaseKeyParams, BatchIdParams, BatchStatusBody, CourierParams, DecisionsParams, DecisionsQuery, DownloadQuery, ManifestListQuery, ManifestPathParams, SubmissionStatusParams } from '#http/manifests/schemas';
import { ManifestSubmission } from '#core/manifests/submission';
import { AlternativeListQuery, AlternativeShowQuery, ManifestParams } from '#http/manifests/alternative/schemas';
import { AlternativeManifest } from '#core/manifests/alternative';

export const CouriersSubmit = {
  id: 'CouriersSubmit',
  method: 'POST',
  path: '/v1/couriers/{courier}/manifests/webhook',
  handler: 'http/manifests/submit',
  summary: 'Submit a manifest (JSON under `default`, an Excel file under a partner slug), whole or as one chunk; Idempotency-Key, X-Signature',
  tag: 'couriers',
  auth: { scopes: ['manifests:write'] },
  rate: 'couriers.submit',
  uses: {
    table: ['GetItem', 'PutItem', 'UpdateItem'],
    bucket: [{ name: 'files', actions: ['PutObject'] }],
    queues: [{ name: 'manifestIntake', actions: ['SendMessage'] }],
    // X-Signature: opens the account's secret; seals one stored in clear before issue 31 on the way.
    signingSecrets: { manifest: ['open', 'seal'] },
  },
  schemas: { params: CourierParams, body: ManifestSubmission },
  successStatus: 202,
  memoryMb: 1769,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const CouriersSubmissionStatus = {
  id: 'CouriersSubmissionStatus',
  method: 'GET',
  path: '/v1/couriers/{courier}/webhook/{idempotencyKey}/status',
  handler: 'http/manifests/submission-status',
  summary: 'Status of a submission by its Idempotency-Key (queued, processing, completed, failed)',
  tag: 'couriers',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem'] },
  schemas: { params: SubmissionStatusParams },
} satisfies RouteDef;

export const CouriersChunkStatus = {
  id: 'CouriersChunkStatus',
  method: 'GET',
  path: '/v1/couriers/manifests/chunks/{baseIdempotencyKey}/status',
  handler: 'http/manifests/chunk-status',
  summary: 'Progress of a chunked upload: received and missing chunks',
  tag: 'couriers',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem'] },
  schemas: { params: BaseKeyParams },
} satisfies RouteDef;

export const CouriersRetryMissing = {
  id: 'CouriersRetryMissing',
  method: 'POST',
  path: '/v1/couriers/manifests/chunks/{baseIdempotencyKey}/retry-missing',
  handler: 'http/manifests/retry-missing',
  summary: 'The chunks still to send (it resends nothing itself)',
  tag: 'couriers',
  auth: { scopes: ['manifests:write'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem'] },
  schemas: { params: BaseKeyParams },
} satisfies RouteDef;

export const CouriersManifests = {
  id: 'CouriersManifests',
  method: 'GET',
  path: '/v1/couriers/manifests',
  handler: 'http/manifests/list',
  summary: "The caller's manifest batches with progress and summary (filters status, date_from, date_to)",
  tag: 'couriers',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['Query'] },
  schemas: { query: ManifestListQuery },
} satisfies RouteDef;

export const CouriersBatchStatus = {
  id: 'CouriersBatchStatus',
  method: 'POST',
  path: '/v1/couriers/manifests/batch-status',
  handler: 'http/manifests/batch-status',
  summary: 'Status of 1 to 50 manifests (batch ids or manifest numbers) at once',
  tag: 'couriers',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'Query'] },
  schemas: { body: BatchStatusBody },
} satisfies RouteDef;

export const CouriersDecisions = {
  id: 'CouriersDecisions',
  method: 'GET',
  path: '/v1/couriers/manifests/{manifest}/batches/{batch}/decisions',
  handler: 'http/manifests/decisions',
  summary: "A batch's item decisions (CREATE, UPDATE, SKIP, REJECT) with reasons, paginated",
  tag: 'couriers',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'BatchGetItem'] },
  schemas: { params: DecisionsParams, query: DecisionsQuery },
} satisfies RouteDef;

export const CouriersPipelineStatus = {
  id: 'CouriersPipelineStatus',
  method: 'GET',
  path: '/v1/couriers/manifests/{manifest}/pipeline-status',
  handler: 'http/manifests/pipeline-status',
  summary: 'The four stages of processing with their status and progress, overall progress and the summary',
  tag: 'couriers',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'Query'] },
  schemas: { params: ManifestPathParams },
} satisfies RouteDef;

export const CouriersDownload = {
  id: 'CouriersDownload',
  method: 'GET',
  path: '/v1/couriers/manifests/{manifest}/download',
  handler: 'http/manifests/download',
  summary: 'The processed products as json, ndjson (one per line), csv or a styled xlsx (excel) with columns and sheets named in English or Spanish (lang), gzip-compressed when accepted, at 100% only (else 409 processing_incomplete)',
  tag: 'couriers',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.download',
  uses: { table: ['GetItem', 'Query'], bucket: [{ name: 'files', actions: ['PutObject', 'GetObject'] }] },
  schemas: { params: ManifestPathParams, query: DownloadQuery },
  memoryMb: 1769,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const CouriersBatchClose = {
  id: 'CouriersBatchClose',
  method: 'POST',
  path: '/v1/couriers/batches/{batchId}/close',
  handler: 'http/manifests/close',
  summary: 'Close a batch: every later write to it gets 423 (broker or admin); a reviewed batch announces its review (manifest.reviewed)',
  tag: 'couriers',
  auth: { roles: ['broker', 'admin'], scopes: ['review:write'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'UpdateItem'], bus: true },
  schemas: { params: BatchIdParams },
} satisfies RouteDef;

export const CouriersBatchReopen = {
  id: 'CouriersBatchReopen',
  method: 'POST',
  path: '/v1/couriers/batches/{batchId}/reopen',
  handler: 'http/manifests/close',
  summary: 'Reopen a closed batch (broker or admin)',
  tag: 'couriers',
  auth: { roles: ['broker', 'admin'], scopes: ['review:write'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'UpdateItem'], bus: true },
  schemas: { params: BatchIdParams },
} satisfies RouteDef;

/** Courier manifests: intake, status, decisions, downloads, batch close and reopen (spec 4.3, 4.4). */
export const manifestsRoutes = { CouriersSubmit, CouriersSubmissionStatus, CouriersChunkStatus, CouriersRetryMissing, CouriersManifests, CouriersBatchStatus, CouriersDecisions, CouriersPipelineStatus, CouriersDownload, CouriersBatchClose, CouriersBatchReopen };

export const ManifestIntake = {
  id: 'ManifestIntake',
  handler: 'workers/manifests/intake',
  summary: "Writes an accepted manifest's (or chunk's) items from its stored payload, then releases the batch to processing",
  queue: 'manifestIntake',
  batchSize: 1,
  // Writes are bulk work: two manifests written at once keep the table and the memory of one
  // process (the twin) within bounds; more submissions wait their turn on the queue.
  maxConcurrency: 2,
  timeoutSeconds: 900,
  memoryMb: 1769,
  uses: {
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
    bucket: [{ name: 'files', actions: ['GetObject'] }],
    bus: true,
  },
} satisfies WorkerDef;

export const manifestsWorkers = { ManifestIntake };

/* The alternative interface (spec 4.x: /v1/manifests). */

export const ManifestsList = {
  id: 'ManifestsList',
  method: 'GET',
  path: '/v1/manifests',
  handler: 'http/manifests/alternative/list',
  summary: "The caller's manifests with their product count and processing status",
  tag: 'manifests',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['Query'] },
  schemas: { query: AlternativeListQuery },
} satisfies RouteDef;

export const ManifestsCreate = {
  id: 'ManifestsCreate',
  method: 'POST',
  path: '/v1/manifests',
  handler: 'http/manifests/alternative/create',
  summary: 'Upload a manifest as up to 1000 products; they take the courier intake and processing path',
  tag: 'manifests',
  auth: { scopes: ['manifests:write'] },
  rate: 'couriers.submit',
  // It writes its items itself before the 201 (services/manifests/writer.ts `writeInRequest`).
  uses: {
    // UpdateItem: the read-through sealing of a signing secret stored in clear before issue 31.
    table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
    bucket: [{ name: 'files', actions: ['GetObject', 'PutObject'] }],
    queues: [{ name: 'manifestIntake', actions: ['SendMessage'] }],
    bus: true,
    // X-Signature: opens the account's secret; seals one stored in clear before issue 31 on the way.
    signingSecrets: { manifest: ['open', 'seal'] },
  },
  schemas: { body: AlternativeManifest },
  successStatus: 201,
  memoryMb: 1024,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const ManifestsShow = {
  id: 'ManifestsShow',
  method: 'GET',
  path: '/v1/manifests/{manifest}',
  handler: 'http/manifests/alternative/show',
  summary: 'A manifest and its products with customs results and tax-id quota (paginated)',
  tag: 'manifests',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'Query'], bucket: [{ name: 'files', actions: ['GetObject'] }] },
  schemas: { params: ManifestParams, query: AlternativeShowQuery },
} satisfies RouteDef;

/** The alternative manifest interface (spec 4.5): products in, the same intake path. */
export const alternativeManifestsRoutes = { ManifestsList, ManifestsCreate, ManifestsShow };
