import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { config } from '#shared/config';
import { traced } from './tracing';

/**
 * Whole files read and written by key, nothing else: the part of the files port (infra/blobs.ts)
 * a function needs to keep a small file of its own (the order list's snapshot), without the
 * multipart upload and presigning modules the full port carries (about 80 KB of a bundle). The
 * twin's files port stands in for it too (`useBlobs` sets both).
 */
export interface BlobObjects {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
}

let s3: S3Client | undefined;
/** The process's one S3 client (infra/blobs.ts uses it too). */
export const s3Client = () => (s3 ??= traced(new S3Client({})));

/** Whole files of `bucket` in S3. */
export function s3ObjectsIn(bucket: () => string): BlobObjects {
  return {
    async put(key, body, contentType) {
      await s3Client().send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: body, ContentType: contentType }));
    },
    async get(key) {
      try {
        const res = await s3Client().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
        return Buffer.from(await res.Body!.transformToByteArray());
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
        throw err;
      }
    },
  };
}

let current: BlobObjects = s3ObjectsIn(config.bucketName);

export function blobObjects(): BlobObjects {
  return current;
}

export function useBlobObjects(port: BlobObjects): void {
  current = port;
}
