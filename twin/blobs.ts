import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { ProofStorePort } from '#infra/blobs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobPort, PresignedUpload, PresignedUploadOptions, StoredEncoding } from '#infra/blobs';
import { constantTimeEqual } from '#core/auth/tokens';
import { now } from '#infra/clock';

/** What a presigned upload form allows: signed, base64url JSON in its `policy` field. */
interface UploadPolicy {
  key: string;
  contentType: string;
  maxBytes: number;
  /** Unix seconds. */
  expires: number;
}

/** How the twin answers an upload form, as S3's POST Object would. */
export interface UploadAnswer {
  status: number;
  /** S3's error code (`AccessDenied`, `EntityTooLarge`, ...). */
  code?: string;
  message?: string;
}

/** The form fields a twin upload accepts besides the file (S3 refuses fields its policy does not name). */
const uploadFields = ['key', 'content-type', 'policy', 'signature'];

/**
 * The twin's S3: files under `<dataDir>/blobs`, download URLs signed with HMAC-SHA256 over
 * key, expiry and response headers, checked by the twin's server like S3 checks its presigned URLs.
 * Presigned uploads are forms with an HMAC-signed policy (key, type, size, expiry), posted to
 * `/_blobs-upload` and checked like S3 checks a POST Object policy.
 */
export class LocalBlobs implements BlobPort {
  readonly root: string;
  private readonly secret: Buffer;

  constructor(
    dataDir: string,
    private readonly publicBaseUrl: () => string,
    /** Where under `dataDir` the files are, and the server path their download URLs name. */
    readonly place: { folder: string; urlPath: string } = { folder: 'blobs', urlPath: '/_blobs' },
  ) {
    this.root = resolve(dataDir, place.folder);
    mkdirSync(this.root, { recursive: true });
    const secretFile = join(dataDir, 'blob-signing.key');
    if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
    this.secret = Buffer.from(readFileSync(secretFile, 'utf8'), 'hex');
  }

  protected file(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error('Blob key escapes the store');
    return path;
  }

  async put(key: string, body: Buffer, contentType: string) {
    const path = this.file(key);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, body);
    await writeFile(path + '.meta.json', JSON.stringify({ contentType }));
  }

  async get(key: string) {
    try {
      return await readFile(this.file(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Written under a temporary name and renamed when complete, so a crash never leaves half a file under `key`. */
  async putStream(key: string, body: Readable, contentType: string, opts?: StoredEncoding) {
    const path = this.file(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${randomUUID()}.partial`;
    try {
      await pipeline(body, createWriteStream(partial));
      await writeFile(path + '.meta.json', JSON.stringify({ contentType, contentEncoding: opts?.contentEncoding }));
      await rename(partial, path);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
  }

  async getStream(key: string): Promise<Readable | undefined> {
    try {
      return (await open(this.file(key))).createReadStream();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async delete(key: string) {
    await rm(this.file(key), { force: true });
    await rm(this.file(key) + '.meta.json', { force: true });
  }

  async downloadUrl(key: string, opts: { expiresInSeconds: number; fileName?: string; contentType?: string } & StoredEncoding) {
    const expires = Math.floor(now().getTime() / 1000) + opts.expiresInSeconds;
    const params = new URLSearchParams({ expires: String(expires) });
    if (opts.fileName) params.set('name', opts.fileName);
    if (opts.contentType) params.set('type', opts.contentType);
    if (opts.contentEncoding) params.set('enc', opts.contentEncoding);
    params.set('sig', this.sign(key, params));
    return `${this.publicBaseUrl()}${this.place.urlPath}/${key.split('/').map(encodeURIComponent).join('/')}?${params}`;
  }

  private sign(key: string, params: URLSearchParams): string {
    // `enc` is signed only when present, so URLs made before it existed still verify.
    const fields = ['expires', 'name', 'type', ...(params.has('enc') ? ['enc'] : [])].map((f) => `${f}=${params.get(f) ?? ''}`).join('&');
    return createHmac('sha256', this.secret).update(`${key}\n${fields}`).digest('hex');
  }

  /** Checks a download URL's signature and expiry: the reason it is refused, or the file as a stream (exports run to hundreds of MB). */
  async open(key: string, params: URLSearchParams): Promise<{ refused: string } | { body: Readable; size: number; contentType: string; contentEncoding?: string; fileName?: string }> {
    const sig = params.get('sig') ?? '';
    if (!constantTimeEqual(sig, this.sign(key, params))) return { refused: 'The signature does not match.' };
    const expires = Number(params.get('expires'));
    if (!Number.isFinite(expires) || expires * 1000 < now().getTime()) return { refused: 'The URL has expired.' };
    const file = await open(this.file(key)).catch(() => undefined);
    const stats = await file?.stat();
    if (!file || !stats?.isFile()) {
      await file?.close();
      return { refused: 'The file no longer exists.' };
    }
    const meta = JSON.parse(await readFile(this.file(key) + '.meta.json', 'utf8').catch(() => '{}')) as { contentType?: string; contentEncoding?: string };
    return {
      body: file.createReadStream(),
      size: stats.size,
      contentType: params.get('type') ?? meta.contentType ?? 'application/octet-stream',
      // As S3 serves an object's Content-Encoding metadata (or the signed response-content-encoding).
      contentEncoding: params.get('enc') ?? meta.contentEncoding,
      fileName: params.get('name') ?? undefined,
    };
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await stat(this.file(key))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async presignedUpload(key: string, opts: PresignedUploadOptions): Promise<PresignedUpload> {
    this.file(key); // a key that would leave the store is refused now, not at upload time
    const policy: UploadPolicy = {
      key,
      contentType: opts.contentType,
      maxBytes: opts.maxBytes,
      expires: Math.floor(now().getTime() / 1000) + opts.expiresInSeconds,
    };
    const encoded = Buffer.from(JSON.stringify(policy), 'utf8').toString('base64url');
    return {
      url: `${this.publicBaseUrl()}/_blobs-upload`,
      fields: { key, 'Content-Type': opts.contentType, policy: encoded, signature: this.signPolicy(encoded) },
    };
  }

  private signPolicy(encoded: string): string {
    return createHmac('sha256', this.secret).update(encoded).digest('hex');
  }

  /**
   * Checks an upload form like S3 checks a presigned POST, then stores the file: 204, or 403
   * (signature, expiry, a field other than signed, an unsigned field) or 400 (size). Field names
   * are matched case-insensitively, as S3 does; the file part's own type is ignored, as S3 does.
   */
  async acceptUpload(fields: Record<string, string>, file: { data: Buffer; mimeType?: string }): Promise<UploadAnswer> {
    const field = (name: string) => Object.entries(fields).find(([k]) => k.toLowerCase() === name)?.[1];
    const denied = (message: string): UploadAnswer => ({ status: 403, code: 'AccessDenied', message });
    const encoded = field('policy');
    const signature = field('signature');
    if (!encoded || !signature) return denied('Bucket POST must contain a policy and its signature.');
    if (!constantTimeEqual(signature, this.signPolicy(encoded))) return denied('The request signature we calculated does not match the signature you provided.');
    let policy: UploadPolicy;
    try {
      policy = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as UploadPolicy;
    } catch {
      return denied('Invalid Policy: the policy is not valid JSON.');
    }
    if (!Number.isFinite(policy.expires) || policy.expires * 1000 < now().getTime()) return denied('Invalid according to Policy: Policy expired.');
    if (field('key') !== policy.key) return denied(`Invalid according to Policy: Policy Condition failed: ["eq", "$key", "${policy.key}"]`);
    if (field('content-type') !== policy.contentType) {
      return denied(`Invalid according to Policy: Policy Condition failed: ["eq", "$Content-Type", "${policy.contentType}"]`);
    }
    const extra = Object.keys(fields).filter((k) => !uploadFields.includes(k.toLowerCase()));
    if (extra.length) return denied(`Invalid according to Policy: Extra input fields: ${extra.join(', ')}`);
    if (file.data.length < 1) return { status: 400, code: 'EntityTooSmall', message: 'Your proposed upload is smaller than the minimum allowed size.' };
    if (file.data.length > policy.maxBytes) return { status: 400, code: 'EntityTooLarge', message: 'Your proposed upload exceeds the maximum allowed size.' };
    await this.put(policy.key, file.data, policy.contentType);
    return { status: 204 };
  }
}

/** A write the proofs' store refuses, as S3 refuses it under Object Lock (AccessDenied). */
export class ProofLocked extends Error {
  override readonly name = 'AccessDenied';
  constructor(key: string, what: string) {
    super(`Access Denied: ${key} is under Object Lock (COMPLIANCE) and cannot be ${what} before its retention ends.`);
  }
}

/**
 * The twin's proofs bucket (issue 44): files under `<dataDir>/proofs`, written once, 0400
 * (read-only) with their metadata; a put over an existing key or a delete is refused
 * (`ProofLocked`), as S3 Object Lock in COMPLIANCE mode refuses them. Download URLs are signed
 * like the other files' and served under `/_proofs/`.
 */
export class LocalProofStore extends LocalBlobs implements ProofStorePort {
  constructor(dataDir: string, publicBaseUrl: () => string) {
    super(dataDir, publicBaseUrl, { folder: 'proofs', urlPath: '/_proofs' });
  }

  async putOnce(key: string, body: Buffer, contentType: string): Promise<'stored' | 'exists'> {
    const path = this.file(key);
    await mkdir(dirname(path), { recursive: true });
    // The metadata first, so a file that exists always has it; `wx` never replaces either.
    try {
      await writeFile(path + '.meta.json', JSON.stringify({ contentType }), { flag: 'wx', mode: 0o400 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && existsSync(path)) return 'exists';
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      await writeFile(path, body, { flag: 'wx', mode: 0o400 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
      throw err;
    }
    return 'stored';
  }

  override async put(key: string, body: Buffer, contentType: string): Promise<void> {
    if ((await this.putOnce(key, body, contentType)) === 'exists') throw new ProofLocked(key, 'overwritten');
  }

  override async putStream(key: string): Promise<void> {
    throw new ProofLocked(key, 'written as a stream');
  }

  override async delete(key: string): Promise<void> {
    throw new ProofLocked(key, 'deleted');
  }
}
