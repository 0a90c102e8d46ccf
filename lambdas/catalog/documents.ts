import type { RouteDef } from './types';
import { Base64Supersede, Base64Upload, BulkReviewBody, ListQuery, RejectBody, ReviewBody, UploadIdParams, UploadUrlBody } from '#http/documents/schemas';
import { IdParams } from '#http/kit/schemas';

export const DocumentsUpload = {
  id: 'DocumentsUpload',
  method: 'POST',
  path: '/v1/transport/documents/upload',
  handler: 'http/documents/upload',
  summary: 'Upload a document: multipart `file`, or JSON `file_base64` + `filename`; Idempotency-Key (UUID) optional',
  tag: 'documents',
  auth: { scopes: ['documents:write'] },
  rate: 'documents.upload',
  uses: {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    bucket: [{ name: 'files', actions: ['PutObject', 'DeleteObject'] }],
    bus: true,
  },
  schemas: { body: Base64Upload },
  successStatus: 201,
  memoryMb: 512,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const DocumentsUploadUrl = {
  id: 'DocumentsUploadUrl',
  method: 'POST',
  path: '/v1/transport/documents/upload-url',
  handler: 'http/documents/upload-url',
  summary: 'Large files: declare the file and get a presigned POST straight to storage (15 minutes, declared size and type only)',
  tag: 'documents',
  auth: { scopes: ['documents:write'] },
  rate: 'documents.upload',
  uses: { table: ['PutItem'], bucket: [{ name: 'files', actions: ['PutObject'] }] },
  schemas: { body: UploadUrlBody },
  successStatus: 201,
} satisfies RouteDef;

export const DocumentsUploadComplete = {
  id: 'DocumentsUploadComplete',
  method: 'POST',
  path: '/v1/transport/documents/uploads/{uploadId}/complete',
  handler: 'http/documents/complete',
  summary: 'Large files: check the stored file against its declaration and register the document',
  tag: 'documents',
  auth: { scopes: ['documents:write'] },
  rate: 'documents.upload',
  uses: {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    bucket: [{ name: 'files', actions: ['GetObject', 'DeleteObject', 'ListBucket'] }],
    bus: true,
  },
  schemas: { params: UploadIdParams },
  successStatus: 201,
  memoryMb: 512,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const DocumentsList = {
  id: 'DocumentsList',
  method: 'GET',
  path: '/v1/transport/documents',
  handler: 'http/documents/list',
  summary: 'List documents with filters and pagination',
  tag: 'documents',
  auth: { scopes: ['documents:read'] },
  rate: 'documents.read',
  uses: { table: ['Query'] },
  schemas: { query: ListQuery },
} satisfies RouteDef;

export const DocumentsShow = {
  id: 'DocumentsShow',
  method: 'GET',
  path: '/v1/transport/documents/{id}',
  handler: 'http/documents/show',
  summary: 'One document in detail form',
  tag: 'documents',
  auth: { scopes: ['documents:read'] },
  rate: 'documents.read',
  uses: { table: ['GetItem'] },
  schemas: { params: IdParams },
} satisfies RouteDef;

export const DocumentsDownload = {
  id: 'DocumentsDownload',
  method: 'GET',
  path: '/v1/transport/documents/{id}/download',
  handler: 'http/documents/download',
  summary: 'A signed download URL valid for 60 minutes',
  tag: 'documents',
  auth: { scopes: ['documents:read'] },
  rate: 'documents.download',
  uses: { table: ['GetItem'], bucket: [{ name: 'files', actions: ['GetObject'] }], bus: true },
  schemas: { params: IdParams },
} satisfies RouteDef;

export const DocumentsHistory = {
  id: 'DocumentsHistory',
  method: 'GET',
  path: '/v1/transport/documents/{id}/history',
  handler: 'http/documents/history',
  summary: 'The current version and every earlier one',
  tag: 'documents',
  auth: { scopes: ['documents:read'] },
  rate: 'documents.read',
  uses: { table: ['GetItem', 'Query'] },
  schemas: { params: IdParams },
} satisfies RouteDef;

export const DocumentsValidate = {
  id: 'DocumentsValidate',
  method: 'PUT',
  path: '/v1/transport/documents/{id}/validate',
  handler: 'http/documents/review',
  summary: 'Validate a document (broker)',
  tag: 'documents',
  auth: { roles: ['broker'], scopes: ['review:write'] },
  rate: 'documents.workflow',
  uses: { table: ['GetItem', 'UpdateItem'], bus: true },
  schemas: { params: IdParams, body: ReviewBody },
} satisfies RouteDef;

export const DocumentsApprove = {
  id: 'DocumentsApprove',
  method: 'PUT',
  path: '/v1/transport/documents/{id}/approve',
  handler: 'http/documents/review',
  summary: 'Approve a document (broker)',
  tag: 'documents',
  auth: { roles: ['broker'], scopes: ['review:write'] },
  rate: 'documents.workflow',
  uses: { table: ['GetItem', 'UpdateItem'], bus: true },
  schemas: { params: IdParams, body: ReviewBody },
} satisfies RouteDef;

export const DocumentsReject = {
  id: 'DocumentsReject',
  method: 'PUT',
  path: '/v1/transport/documents/{id}/reject',
  handler: 'http/documents/review',
  summary: 'Reject a document (broker)',
  tag: 'documents',
  auth: { roles: ['broker'], scopes: ['review:write'] },
  rate: 'documents.workflow',
  uses: { table: ['GetItem', 'UpdateItem'], bus: true },
  schemas: { params: IdParams, body: RejectBody },
} satisfies RouteDef;

export const DocumentsBulkReview = {
  id: 'DocumentsBulkReview',
  method: 'POST',
  path: '/v1/transport/documents/review',
  handler: 'http/documents/bulk-review',
  summary: "Validate, approve (validate_and_approve: both, where the workflow allows), or reject up to 100 documents at once (broker); each document's outcome answered",
  tag: 'documents',
  auth: { roles: ['broker'], scopes: ['review:write'] },
  rate: 'documents.workflow',
  uses: { table: ['GetItem', 'UpdateItem'], bus: true },
  schemas: { body: BulkReviewBody },
  timeoutSeconds: 29,
} satisfies RouteDef;

export const DocumentsSupersede = {
  id: 'DocumentsSupersede',
  method: 'POST',
  path: '/v1/transport/documents/{id}/supersede',
  handler: 'http/documents/supersede',
  summary: 'Replace a document with a new version (multipart `file` or JSON `file_base64` + `filename`, optional `reason`)',
  tag: 'documents',
  auth: { scopes: ['documents:write'] },
  rate: 'documents.workflow',
  uses: {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    bucket: [{ name: 'files', actions: ['PutObject', 'DeleteObject'] }],
    bus: true,
  },
  schemas: { params: IdParams, body: Base64Supersede },
  successStatus: 201,
  memoryMb: 512,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const DocumentsDelete = {
  id: 'DocumentsDelete',
  method: 'DELETE',
  path: '/v1/transport/documents/{id}',
  handler: 'http/documents/delete',
  summary: 'Delete a document that is uploaded or rejected, with its file',
  tag: 'documents',
  auth: { scopes: ['documents:write'] },
  rate: 'documents.workflow',
  uses: { table: ['GetItem', 'DeleteItem'], bucket: [{ name: 'files', actions: ['DeleteObject'] }] },
  schemas: { params: IdParams },
} satisfies RouteDef;

/** Transport documents (spec 4.2). */
export const documentsRoutes = { DocumentsUpload, DocumentsUploadUrl, DocumentsUploadComplete, DocumentsList, DocumentsShow, DocumentsDownload, DocumentsHistory, DocumentsValidate, DocumentsApprove, DocumentsReject, DocumentsBulkReview, DocumentsSupersede, DocumentsDelete };
