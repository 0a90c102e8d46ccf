import { Readable } from 'node:stream';
import { config } from '#shared/config';
import { proofsConfig } from '#shared/proofs-config';
import { contentDisposition } from '#core/documents/files';
import { s3Client, s3ObjectsIn, s3Sdk, useBlobObjects } from './blob-objects';

/** Files (documents, stored manifests, exports, labels). Keys are always chosen by the service. */
export interface BlobPort {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  /**
   * Stores a file as it is produced, for files too large to hold in memory (exports). The file
   * appears under `key` whole once the stream has ended, never in part; a failed stream leaves
   * whatever was there before.
   */
  putStream(key: string, body: Readable, contentType: string, opts?: StoredEncoding): Promise<void>;
  /** A file read as it arrives, or undefined when there is no such file. */
  getStream(key: string): Promise<Readable | undefined>;
  delete(key: string): Promise<void>;
  /** A URL anyone holding it can GET until it expires; tampering or expiry -> 403. */
  downloadUrl(key: string, opts: { expiresInSeconds: number; fileName?: string; contentType?: string } & StoredEncoding): Promise<string>;
  /**
   * A browser-style POST straight to the store (S3's POST Object): send `fields` then the `file`
   * field, last, as multipart/form-data to `url`. The store refuses (403) a changed key, a changed
   * Content-Type, a bad signature or an expired form, and (400) a file of 0 or over `maxBytes` bytes.
   */
  presignedUpload(key: string, opts: PresignedUploadOptions): Promise<PresignedUpload>;
  /** The stored size in bytes, or undefined when there is no such file. */
  size(key: string): Promise<number | undefined>;
}

/** A file stored compressed: served with `Content-Encoding` (S3 object metadata), so clients decode it as they read. */
export interface StoredEncoding {
  contentEncoding?: 'gzip';
}

export interface PresignedUploadOptions {
  maxBytes: number;
  contentType: string;
  expiresInSeconds: number;
}

export interface PresignedUpload {
  url: string;
  fields: Record<string, string>;
}

/** S3 under the files bucket; `s3BlobsIn` for another bucket. */
export const s3Blobs: BlobPort = s3BlobsIn(config.bucketName);

function s3BlobsIn(bucket: () => string): BlobPort {
  return {
    ...s3ObjectsIn(bucket),
    async putStream(key, body, contentType, opts) {
      // lib-storage's Upload sends the stream as a multipart upload (5 MB parts, 4 in flight), or
      // one PutObject when it is smaller than a part; the object exists only once it is complete.
      // A failed upload's parts are left to the bucket's abort-incomplete-uploads rule (lib/data.ts),
      // so the failure reported is the upload's own, not a refused abort.
      const { Upload } = await s3Sdk();
      await new Upload({
        client: await s3Client(),
        params: { Bucket: bucket(), Key: key, Body: body, ContentType: contentType, ContentEncoding: opts?.contentEncoding },
        leavePartsOnError: true,
      }).done();
    },
    async getStream(key) {
      const { GetObjectCommand } = await s3Sdk();
      try {
        const res = await (await s3Client()).send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
        // In Node the SDK answers the body as the HTTP response, a Readable.
        if (!(res.Body instanceof Readable)) throw new Error(`blob ${key}: the object's body is not a stream`);
        return res.Body;
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
        throw err;
      }
    },
    async delete(key) {
      const { DeleteObjectCommand } = await s3Sdk();
      await (await s3Client()).send(new DeleteObjectCommand({ Bucket: bucket(), Key: key }));
    },
    async downloadUrl(key, opts) {
      const { GetObjectCommand, getSignedUrl } = await s3Sdk();
      const cmd = new GetObjectCommand({
        Bucket: bucket(),
        Key: key,
        ResponseContentDisposition: opts.fileName ? contentDisposition(opts.fileName) : undefined,
        ResponseContentType: opts.contentType,
        ResponseContentEncoding: opts.contentEncoding,
      });
      return getSignedUrl(await s3Client(), cmd, { expiresIn: opts.expiresInSeconds });
    },
    async presignedUpload(key, opts) {
      const { createPresignedPost } = await s3Sdk();
      const { url, fields } = await createPresignedPost(await s3Client(), {
        Bucket: bucket(),
        Key: key,
        Conditions: [
          ['content-length-range', 1, opts.maxBytes],
          ['eq', '$Content-Type', opts.contentType],
        ],
        Fields: { 'Content-Type': opts.contentType },
        Expires: opts.expiresInSeconds,
      });
      return { url, fields };
    },
    async size(key) {
      const { HeadObjectCommand } = await s3Sdk();
      try {
        const res = await (await s3Client()).send(new HeadObjectCommand({ Bucket: bucket(), Key: key }));
        return res.ContentLength;
      } catch (err) {
        const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
        throw err;
      }
    },
  };
}

let current: BlobPort = s3Blobs;

export function blobs(): BlobPort {
  return current;
}

export function useBlobs(port: BlobPort): void {
  current = port;
  useBlobObjects(port);
}

/**
 * The proofs of delivery (issue 44): a store where a file is written once and then neither
 * replaced nor deleted. In a deployed stage it is a bucket of its own under S3 Object Lock in
 * COMPLIANCE mode (lib/data.ts): not even the account's root user shortens the retention. The
 * port has no delete, and `putOnce` never replaces: a key that holds a file answers 'exists'.
 */
export interface ProofStorePort {
  putOnce(key: string, body: Buffer, contentType: string): Promise<'stored' | 'exists'>;
  get(key: string): Promise<Buffer | undefined>;
  getStream(key: string): Promise<Readable | undefined>;
  downloadUrl(key: string, opts: { expiresInSeconds: number; fileName?: string; contentType?: string }): Promise<string>;
}

let proofsBucketPort: BlobPort | undefined;
/** Made on first use, so a bundle that never reads proofs carries none of this. */
const proofsBucket = () => (proofsBucketPort ??= s3BlobsIn(proofsConfig.bucketName));

export const s3Proofs: ProofStorePort = {
  async putOnce(key, body, contentType) {
    const { PutObjectCommand } = await s3Sdk();
    try {
      // If-None-Match: S3's conditional write refuses (412) a key that exists; Object Lock needs
      // a checksum on every write.
      await (await s3Client()).send(new PutObjectCommand({ Bucket: proofsConfig.bucketName(), Key: key, Body: body, ContentType: contentType, IfNoneMatch: '*', ChecksumAlgorithm: 'SHA256' }));
      return 'stored';
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'PreconditionFailed' || e.$metadata?.httpStatusCode === 412) return 'exists';
      throw err;
    }
  },
  get: (key) => proofsBucket().get(key),
  getStream: (key) => proofsBucket().getStream(key),
  downloadUrl: (key, opts) => proofsBucket().downloadUrl(key, opts),
};

let currentProofs: ProofStorePort = s3Proofs;

export function proofStore(): ProofStorePort {
  return currentProofs;
}

export function useProofStore(port: ProofStorePort): void {
  currentProofs = port;
}
