import type { S3Client } from '@aws-sdk/client-s3';
import { config } from '#shared/config';
import { traced } from './tracing';

/**
 * Whole files read and written by key, nothing else: the part of the files port (infra/blobs.ts)
 * a function needs to keep a small file of its own (the order list's snapshot), without the
 * multipart upload and presigning the full port uses. The
 * twin's files port stands in for it too (`useBlobs` sets both).
 */
export interface BlobObjects {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
}

/**
 * The S3 SDK (s3-sdk.ts): in a Lambda bundle, the module bundled beside it (s3-sdk.mjs,
 * lib/bundling.ts `lazyModules`); run from the sources, the module itself. A computed URL, which
 * esbuild leaves to run time, so no bundle evaluates the S3 client at cold start (issue 46).
 */
const sdkModule = import.meta.url.endsWith('.ts') ? new URL('./s3-sdk.ts', import.meta.url).href : new URL('./s3-sdk.mjs', import.meta.url).href;

let sdk: Promise<typeof import('./s3-sdk')> | undefined;
/** The S3 SDK, imported at the process's first file operation. */
export const s3Sdk = () => (sdk ??= import(sdkModule) as Promise<typeof import('./s3-sdk')>);

let s3: S3Client | undefined;
/** The process's one S3 client (infra/blobs.ts uses it too), made at its first use. */
export async function s3Client(): Promise<S3Client> {
  const { S3Client } = await s3Sdk();
  return (s3 ??= traced(new S3Client({})));
}

/** Whole files of `bucket` in S3. */
export function s3ObjectsIn(bucket: () => string): BlobObjects {
  return {
    async put(key, body, contentType) {
      const { PutObjectCommand } = await s3Sdk();
      await (await s3Client()).send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: body, ContentType: contentType }));
    },
    async get(key) {
      const { GetObjectCommand } = await s3Sdk();
      try {
        const res = await (await s3Client()).send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
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
