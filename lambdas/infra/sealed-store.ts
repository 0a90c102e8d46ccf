import { CreateSecretCommand, DeleteSecretCommand, GetSecretValueCommand, PutSecretValueCommand, RestoreSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb, type ScryptOptions } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { traced } from './tracing';

/**
 * Where an account's secrets are kept, shared by the marketplace connections
 * (marketplace-credentials.ts) and the carrier accounts (carrier-credentials.ts): one Secrets
 * Manager secret per account and name in AWS, and on the twin one local file of AES-256-GCM
 * encrypted entries. The stores decide names, shapes and summaries; this module only keeps text.
 */

/* ---- AWS Secrets Manager ---- */

let sm: SecretsManagerClient | undefined;
export const secretsClient = () => (sm ??= traced(new SecretsManagerClient({})));
export const secretErrorName = (err: unknown) => (err as { name?: string }).name;
/** A secret deleted with a recovery window (made outside this code) answers as absent. */
export const scheduledForDeletion = (err: unknown) => secretErrorName(err) === 'InvalidRequestException' && /deletion/i.test((err as Error).message);

/** The tags a secret is created with (the functions' policy allows only these keys). */
export function secretTags(accountId: number, channel: string) {
  return [
    { Key: 'despacho:account', Value: String(accountId) },
    { Key: 'despacho:channel', Value: channel },
  ];
}

/** The secret's text, or undefined when there is none (or it is scheduled for deletion). */
export async function readSecretText(name: string): Promise<string | undefined> {
  try {
    return (await secretsClient().send(new GetSecretValueCommand({ SecretId: name }))).SecretString;
  } catch (err) {
    if (secretErrorName(err) === 'ResourceNotFoundException' || scheduledForDeletion(err)) return undefined;
    throw err;
  }
}

/** Creates the secret, or writes a new value to the one there (restoring it first if it was scheduled for deletion). */
export async function writeSecret(name: string, text: string, opts: { description: string; tags: { Key: string; Value: string }[] }): Promise<void> {
  try {
    await secretsClient().send(new CreateSecretCommand({ Name: name, SecretString: text, Description: opts.description, Tags: opts.tags }));
    return;
  } catch (err) {
    if (scheduledForDeletion(err)) await secretsClient().send(new RestoreSecretCommand({ SecretId: name }));
    else if (secretErrorName(err) !== 'ResourceExistsException') throw err;
  }
  await secretsClient().send(new PutSecretValueCommand({ SecretId: name, SecretString: text }));
}

/** Deletes the secret at once (credentials an account took back are not kept for a recovery window); absent is fine. */
export async function deleteSecret(name: string): Promise<void> {
  try {
    await secretsClient().send(new DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true }));
  } catch (err) {
    if (secretErrorName(err) !== 'ResourceNotFoundException') throw err;
  }
}

/* ---- Encrypted local file (the twin) ---- */

interface EncryptedEntry {
  iv: string;
  tag: string;
  data: string;
}

interface SealedFile {
  version: 1;
  /** scrypt's salt for this file's key. */
  salt: string;
  /** entry name -> its text, encrypted with the name as associated data. */
  entries: Record<string, EncryptedEntry>;
}

/** One file's entries, as read (and, inside `change`, as they will be written). */
export interface SealedEntries {
  has(name: string): boolean;
  /** The entry's text; `where` names it in the error when it cannot be decrypted. */
  open(name: string, where: string): Promise<string>;
  seal(name: string, text: string): Promise<void>;
  delete(name: string): void;
}

const scryptParams: ScryptOptions = { N: 2 ** 14, r: 8, p: 1 };

export function scrypt(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((done, fail) => scryptCb(secret, salt, 32, scryptParams, (err, key) => (err ? fail(err) : done(key))));
}

/**
 * A file of entries each encrypted alone with AES-256-GCM (a fresh 12-byte IV each write) and its
 * name as associated data, so an entry moved to another name fails to decrypt like a tampered one.
 * The key is scrypt of `secret`, or else of a random key kept in `keyFile` (created 0600 on first
 * use; several files may share it), salted per file. Every change rewrites the file atomically
 * (a 0600 temporary file, then rename); changes made by this process are applied one at a time.
 */
export class EncryptedFile {
  private keys = new Map<string, Promise<Buffer>>();
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly opts: { keyFile: string; secret?: string; what: string; unreadable: (message: string) => Error },
  ) {}

  /** The entries as stored, or undefined when there is no file yet. */
  async view(): Promise<SealedEntries | undefined> {
    const file = await this.read();
    return file && this.entries(file);
  }

  /** Read, change, write back; one change at a time. */
  change(fn: (entries: SealedEntries) => Promise<void>): Promise<void> {
    const run = this.writing.then(async () => {
      const file = (await this.read()) ?? { version: 1, salt: randomBytes(16).toString('base64'), entries: {} };
      await fn(this.entries(file));
      await this.write(file);
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  private entries(file: SealedFile): SealedEntries {
    return {
      has: (name) => Object.hasOwn(file.entries, name),
      open: (name, where) => this.decrypt(file, name, file.entries[name], where),
      seal: async (name, text) => void (file.entries[name] = await this.encrypt(file, name, text)),
      delete: (name) => void delete file.entries[name],
    };
  }

  private async read(): Promise<SealedFile | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    let file: SealedFile | undefined;
    try {
      file = JSON.parse(text) as SealedFile;
    } catch {
      file = undefined;
    }
    if (file?.version !== 1 || typeof file.salt !== 'string' || typeof file.entries !== 'object') throw this.opts.unreadable(`${this.file} is not a ${this.opts.what} file`);
    return file;
  }

  private async write(file: SealedFile) {
    await mkdir(resolve(this.file, '..'), { recursive: true });
    const temp = `${this.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(JSON.stringify(file, null, 2));
      await handle.sync();
    } catch (err) {
      await handle.close();
      await rm(temp, { force: true });
      throw err;
    }
    await handle.close();
    await rename(temp, this.file);
  }

  /** scrypt of the key material with the file's salt, worked out once per salt. */
  private key(salt: string): Promise<Buffer> {
    let key = this.keys.get(salt);
    if (!key) {
      key = this.keyMaterial().then((secret) => scrypt(secret, Buffer.from(salt, 'base64')));
      key.catch(() => this.keys.delete(salt));
      this.keys.set(salt, key);
    }
    return key;
  }

  private keyMaterial(): Promise<string> {
    return this.opts.secret ? Promise.resolve(this.opts.secret) : localKeyMaterial(this.opts.keyFile);
  }

  private async encrypt(file: SealedFile, name: string, text: string): Promise<EncryptedEntry> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.key(file.salt), iv);
    cipher.setAAD(Buffer.from(name));
    const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  private async decrypt(file: SealedFile, name: string, entry: EncryptedEntry, where: string): Promise<string> {
    const key = await this.key(file.salt);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(entry.iv, 'base64'), { authTagLength: 16 });
      decipher.setAAD(Buffer.from(name));
      decipher.setAuthTag(Buffer.from(entry.tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(entry.data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw this.opts.unreadable(`The stored ${where} cannot be decrypted: the file was changed, or the key is not the one they were stored with.`);
    }
  }
}

/**
 * The random key kept in `keyFile` (hex, created 0600 on first use): the twin's local key, which
 * the credentials files and the signing-secret sealer (sealed-secrets.ts) share.
 */
export async function localKeyMaterial(keyFile: string): Promise<string> {
  try {
    return (await readFile(keyFile, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(resolve(keyFile, '..'), { recursive: true });
  try {
    await writeFile(keyFile, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another store made it first: use theirs.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return (await readFile(keyFile, 'utf8')).trim();
}

/** A twin's credentials file that cannot be read: a wrong key, a tampered or moved entry. */
export class CredentialsUnreadable extends Error {
  override readonly name = 'CredentialsUnreadable';
}

/**
 * A twin's credentials store: `<dataDir>/<name>`, an `EncryptedFile` whose key is scrypt of `key`,
 * else of `MARKETPLACE_CREDENTIALS_KEY`, else of the random key in
 * `<dataDir>/marketplace-credentials.key`, which every credentials file of the data folder shares.
 */
export abstract class LocalCredentialsFile {
  protected readonly store: EncryptedFile;

  constructor(dataDir: string, name: string, opts: { key?: string; what: string }) {
    const dir = resolve(dataDir);
    this.store = new EncryptedFile(join(dir, name), {
      keyFile: join(dir, 'marketplace-credentials.key'),
      secret: opts.key ?? (process.env.MARKETPLACE_CREDENTIALS_KEY || undefined),
      what: opts.what,
      unreadable: (message) => new CredentialsUnreadable(message),
    });
  }

  get file(): string {
    return this.store.file;
  }
}
