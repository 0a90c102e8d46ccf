import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from './config';

/** Files (documents, stored manifests, exports, labels). Keys are always chosen by the service. */
export interface BlobPort {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  delete(key: string): Promise<void>;
  /** A URL anyone holding it can GET until it expires; tampering or expiry -> 403. */
  downloadUrl(key: string, opts: { expiresInSeconds: number; fileName?: string; contentType?: string }): Promise<string>;
}

let s3: S3Client | undefined;
const client = () => (s3 ??= new S3Client({}));

export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export const s3Blobs: BlobPort = {
  async put(key, body, contentType) {
    await client().send(new PutObjectCommand({ Bucket: config.bucketName(), Key: key, Body: body, ContentType: contentType }));
  },
  async get(key) {
    try {
      const res = await client().send(new GetObjectCommand({ Bucket: config.bucketName(), Key: key }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw err;
    }
  },
  async delete(key) {
    await client().send(new DeleteObjectCommand({ Bucket: config.bucketName(), Key: key }));
  },
  async downloadUrl(key, opts) {
    const cmd = new GetObjectCommand({
      Bucket: config.bucketName(),
      Key: key,
      ResponseContentDisposition: opts.fileName ? contentDisposition(opts.fileName) : undefined,
      ResponseContentType: opts.contentType,
    });
    return getSignedUrl(client(), cmd, { expiresIn: opts.expiresInSeconds });
  },
};

let current: BlobPort = s3Blobs;

export function blobs(): BlobPort {
  return current;
}

export function useBlobs(port: BlobPort): void {
  current = port;
}
