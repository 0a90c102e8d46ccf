import type { RouteDef } from './types';
import { AlternativeListQuery, AlternativeShowQuery, ManifestParams } from '../http/manifests/schemas';
import { AlternativeManifest } from '../core/manifests/alternative';

export const ManifestsList = {
  id: 'ManifestsList',
  method: 'GET',
  path: '/v1/manifests',
  handler: 'http/manifests/manifests',
  summary: "The caller's manifests with their product count and processing status",
  tag: 'manifests',
  auth: {},
  rate: 'couriers.status',
  uses: { table: ['Query'] },
  schemas: { query: AlternativeListQuery },
} satisfies RouteDef;

export const ManifestsCreate = {
  id: 'ManifestsCreate',
  method: 'POST',
  path: '/v1/manifests',
  handler: 'http/manifests/manifests',
  summary: 'Upload a manifest as up to 1000 products; they take the courier intake and processing path',
  tag: 'manifests',
  auth: {},
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
  handler: 'http/manifests/show',
  summary: 'A manifest and its products with customs results and tax-id quota (paginated)',
  tag: 'manifests',
  auth: {},
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'Query'], bucket: [{ name: 'files', actions: ['GetObject'] }] },
  schemas: { params: ManifestParams, query: AlternativeShowQuery },
} satisfies RouteDef;

/** The alternative manifest interface (spec 4.5): products in, the same intake path. */
export const manifestsRoutes = { ManifestsList, ManifestsCreate, ManifestsShow };
