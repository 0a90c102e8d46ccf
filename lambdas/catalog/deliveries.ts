import type { RouteDef } from './types';
import { BulkBody, BulkUploadUrlBody, FlightParams, ListQuery, RecordBody } from '#http/deliveries/schemas';

/**
 * Proofs of delivery kept five years (issue 44): docs/partners/deliveries.md. They share the
 * transport documents' rate groups (spec 2.4 counts delivery confirmations among the documents).
 */

export const DeliveriesRecord = {
  id: 'DeliveriesRecord',
  method: 'POST',
  path: '/v1/deliveries',
  handler: 'http/deliveries/record',
  summary: "Record an AWB's proof of delivery (who, when, where, and the signature or photo); kept five years, never changed",
  tag: 'deliveries',
  auth: { scopes: ['deliveries:write'] },
  rate: 'documents.upload',
  uses: { table: ['GetItem', 'Query', 'BatchGetItem', 'PutItem'], bucket: [{ name: 'proofs', actions: ['PutObject'] }], bus: true },
  schemas: { body: RecordBody },
  successStatus: 201,
  memoryMb: 512,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const DeliveriesList = {
  id: 'DeliveriesList',
  method: 'GET',
  path: '/v1/deliveries',
  handler: 'http/deliveries/list',
  summary: 'Find proofs of delivery by AWB, manifest or flight (MAWB), each with a download URL valid 60 minutes',
  tag: 'deliveries',
  auth: { scopes: ['deliveries:read'] },
  rate: 'documents.read',
  uses: { table: ['Query'], bucket: [{ name: 'proofs', actions: ['GetObject'] }], cursors: true },
  schemas: { query: ListQuery },
} satisfies RouteDef;

export const DeliveriesBulkUploadUrl = {
  id: 'DeliveriesBulkUploadUrl',
  method: 'POST',
  path: '/v1/deliveries/bulk/upload-url',
  handler: 'http/deliveries/bulk-upload-url',
  summary: "A day's proofs in bulk, step 1: declare the CSV and the ZIP of files and get a presigned POST for each (15 minutes)",
  tag: 'deliveries',
  auth: { scopes: ['deliveries:write'] },
  rate: 'documents.upload',
  uses: { table: ['PutItem'], bucket: [{ name: 'files', actions: ['PutObject'] }] },
  schemas: { body: BulkUploadUrlBody },
  successStatus: 201,
} satisfies RouteDef;

export const DeliveriesBulk = {
  id: 'DeliveriesBulk',
  method: 'POST',
  path: '/v1/deliveries/bulk',
  handler: 'http/deliveries/bulk',
  summary: "A day's proofs in bulk, step 2: import the uploaded CSV and ZIP, all or nothing",
  tag: 'deliveries',
  auth: { scopes: ['deliveries:write'] },
  rate: 'documents.upload',
  uses: {
    table: ['GetItem', 'Query', 'BatchGetItem', 'PutItem'],
    bucket: [
      { name: 'files', actions: ['GetObject', 'DeleteObject', 'ListBucket'] },
      { name: 'proofs', actions: ['PutObject'] },
    ],
    bus: true,
  },
  schemas: { body: BulkBody },
  successStatus: 201,
  memoryMb: 1024,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const DeliveriesFlightArchive = {
  id: 'DeliveriesFlightArchive',
  method: 'GET',
  path: '/v1/deliveries/flights/{mawb}/archive',
  handler: 'http/deliveries/flight-archive',
  summary: "A flight's proofs of delivery as one ZIP with index.csv: a download URL valid 60 minutes",
  tag: 'deliveries',
  auth: { scopes: ['deliveries:read'] },
  rate: 'documents.read',
  uses: {
    table: ['Query'],
    bucket: [
      { name: 'proofs', actions: ['GetObject'] },
      { name: 'files', actions: ['PutObject', 'GetObject'] },
    ],
  },
  schemas: { params: FlightParams },
  memoryMb: 512,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const deliveriesRoutes = { DeliveriesRecord, DeliveriesList, DeliveriesBulkUploadUrl, DeliveriesBulk, DeliveriesFlightArchive };
