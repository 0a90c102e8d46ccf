/**
 * The AWS SDK's S3 modules the files ports use (infra/blob-objects.ts, infra/blobs.ts): the
 * client and its commands, lib-storage's multipart upload and the two presigners. In a Lambda
 * bundle this is a module of its own beside index.mjs (s3-sdk.mjs, lib/bundling.ts
 * `lazyModules`), imported at a function's first file operation, so no function evaluates it at
 * cold start and one that never touches a file never reads it (issue 46).
 */
export { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
export { Upload } from '@aws-sdk/lib-storage';
export { createPresignedPost } from '@aws-sdk/s3-presigned-post';
export { getSignedUrl } from '@aws-sdk/s3-request-presigner';
