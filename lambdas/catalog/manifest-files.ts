import type { RouteDef } from './types';
import { ListQuery, UploadFields, UploadIdParams, UploadUrlBody } from '#http/manifest-files/schemas';

export const ManifestStorageUpload = {
  id: 'ManifestStorageUpload',
  method: 'POST',
  path: '/v1/manifests/storage/upload',
  handler: 'http/manifest-files/upload',
  summary:
    'Store a manifest file: multipart `file` (json, xlsx, xlsm, xls; 40 MB) and `courier_code`, optional `manifest_name`, `description`; Idempotency-Key (UUID) optional',
  tag: 'storage',
  rawBody: { contentType: 'multipart/form-data', description: 'The file and what it is', schema: UploadFields, files: ['file'] },
  auth: { scopes: ['manifests:write'] },
  rate: 'storage',
  uses: {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    bucket: [{ name: 'files', actions: ['PutObject', 'DeleteObject', 'GetObject'] }],
  },
  successStatus: 201,
  memoryMb: 512,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const ManifestStorageUploadUrl = {
  id: 'ManifestStorageUploadUrl',
  method: 'POST',
  path: '/v1/manifests/storage/upload-url',
  handler: 'http/manifest-files/upload-url',
  summary: 'Large manifest files: declare the file and get a presigned POST straight to storage (15 minutes, declared size and type only)',
  tag: 'storage',
  auth: { scopes: ['manifests:write'] },
  rate: 'storage',
  uses: { table: ['PutItem'], bucket: [{ name: 'files', actions: ['PutObject'] }] },
  schemas: { body: UploadUrlBody },
  successStatus: 201,
} satisfies RouteDef;

export const ManifestStorageUploadComplete = {
  id: 'ManifestStorageUploadComplete',
  method: 'POST',
  path: '/v1/manifests/storage/uploads/{uploadId}/complete',
  handler: 'http/manifest-files/complete',
  summary: 'Large manifest files: check the stored file against its declaration and register it',
  tag: 'storage',
  auth: { scopes: ['manifests:write'] },
  rate: 'storage',
  uses: {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    bucket: [{ name: 'files', actions: ['GetObject', 'DeleteObject', 'ListBucket'] }],
  },
  schemas: { params: UploadIdParams },
  successStatus: 201,
  memoryMb: 512,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const ManifestStorageList = {
  id: 'ManifestStorageList',
  method: 'GET',
  path: '/v1/manifests/storage/list',
  handler: 'http/manifest-files/list',
  summary: "The caller's stored manifest files, newest first, with file URLs signed for 60 minutes",
  tag: 'storage',
  auth: { scopes: ['manifests:read'] },
  rate: 'storage',
  uses: { table: ['Query'], bucket: [{ name: 'files', actions: ['GetObject'] }] },
  schemas: { query: ListQuery },
} satisfies RouteDef;

/** Stored manifest files (spec 4.7). */
export const manifestFilesRoutes = { ManifestStorageUpload, ManifestStorageUploadUrl, ManifestStorageUploadComplete, ManifestStorageList };
