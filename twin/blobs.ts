import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { BlobPort } from '../lambdas/infra/blobs';
import { constantTimeEqual } from '../lambdas/core/auth/tokens';
import { now } from '../lambdas/infra/clock';

/**
 * The twin's S3: files under `<dataDir>/blobs`, download URLs signed with HMAC-SHA256 over
 * key, expiry and response headers, checked by the twin's server like S3 checks its presigned URLs.
 */
export class LocalBlobs implements BlobPort {
  readonly root: string;
  private readonly secret: Buffer;

  constructor(dataDir: string, private readonly publicBaseUrl: () => string) {
    this.root = resolve(dataDir, 'blobs');
    mkdirSync(this.root, { recursive: true });
    const secretFile = join(dataDir, 'blob-signing.key');
    if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
    this.secret = Buffer.from(readFileSync(secretFile, 'utf8'), 'hex');
  }

  private file(key: string): string {
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

  async delete(key: string) {
    await rm(this.file(key), { force: true });
    await rm(this.file(key) + '.meta.json', { force: true });
  }

  async downloadUrl(key: string, opts: { expiresInSeconds: number; fileName?: string; contentType?: string }) {
    const expires = Math.floor(now().getTime() / 1000) + opts.expiresInSeconds;
    const params = new URLSearchParams({ expires: String(expires) });
    if (opts.fileName) params.set('name', opts.fileName);
    if (opts.contentType) params.set('type', opts.contentType);
    params.set('sig', this.sign(key, params));
    return `${this.publicBaseUrl()}/_blobs/${key.split('/').map(encodeURIComponent).join('/')}?${params}`;
  }

  private sign(key: string, params: URLSearchParams): string {
    const fields = ['expires', 'name', 'type'].map((f) => `${f}=${params.get(f) ?? ''}`).join('&');
    return createHmac('sha256', this.secret).update(`${key}\n${fields}`).digest('hex');
  }

  /** Checks a download URL's signature and expiry: the reason it is refused, or the file. */
  async open(key: string, params: URLSearchParams): Promise<{ refused: string } | { body: Buffer; contentType: string; fileName?: string }> {
    const sig = params.get('sig') ?? '';
    if (!constantTimeEqual(sig, this.sign(key, params))) return { refused: 'The signature does not match.' };
    const expires = Number(params.get('expires'));
    if (!Number.isFinite(expires) || expires * 1000 < now().getTime()) return { refused: 'The URL has expired.' };
    const body = await this.get(key).catch(() => undefined);
    if (!body) return { refused: 'The file no longer exists.' };
    const meta = JSON.parse(await readFile(this.file(key) + '.meta.json', 'utf8').catch(() => '{}')) as { contentType?: string };
    return { body, contentType: params.get('type') ?? meta.contentType ?? 'application/octet-stream', fileName: params.get('name') ?? undefined };
  }
}
