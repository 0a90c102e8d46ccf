import {
  BatchGetSecretValueCommand,
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb, type ScryptOptions } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { canonicalChannel, formerCodesOf, syncChannels, type MarketplaceConnection, type SyncChannel } from '../core/orders/marketplace';
import { nowIso } from './clock';

/**
 * Each account's marketplace connections (base URL and credentials), kept encrypted: in AWS one
 * Secrets Manager secret per account and channel, on the twin one local file whose entries are
 * AES-256-GCM encrypted. Nothing here ever logs or returns a credential except `get`.
 *
 * Connections stored under a former channel code (`mercadolibre`, now `meli`) are still the
 * channel's: `get` and `list` find them (answering the current code), `put` replaces them (writes
 * the current name and deletes the former), `remove` deletes them, and `migrateFormer` moves them to
 * the current name (the `migrate channel-codes` command).
 */
export interface ConnectionSummary {
  channel: SyncChannel;
  baseUrl: string;
  updatedAt: string;
}

export interface MarketplaceCredentialsPort {
  get(accountId: number, channel: SyncChannel): Promise<MarketplaceConnection | undefined>;
  /** Creates or replaces the account's connection to `connection.channel`. */
  put(accountId: number, connection: MarketplaceConnection): Promise<void>;
  /** Removing what is not there is not an error. */
  remove(accountId: number, channel: SyncChannel): Promise<void>;
  list(accountId: number): Promise<ConnectionSummary[]>;
  /**
   * Moves the account's connection stored under a former code of `channel` to `channel`; a
   * connection already stored under `channel` is newer and is kept. True when something moved.
   */
  migrateFormer(accountId: number, channel: SyncChannel): Promise<boolean>;
}

/** What is stored for one connection, encrypted as a whole. */
interface StoredConnection extends MarketplaceConnection {
  updatedAt: string;
}

function stored(connection: MarketplaceConnection): StoredConnection {
  return { channel: connection.channel, baseUrl: connection.baseUrl, credentials: { ...connection.credentials }, updatedAt: nowIso() };
}

function parseStored(json: string, where: string): StoredConnection {
  const value = JSON.parse(json) as StoredConnection;
  const channel = typeof value?.channel === 'string' ? canonicalChannel(value.channel) : undefined;
  if (!syncChannels.includes(channel as SyncChannel) || typeof value.baseUrl !== 'string' || typeof value.credentials !== 'object') {
    throw new Error(`${where} does not hold a marketplace connection`);
  }
  return { ...value, channel: channel as SyncChannel };
}

/** One summary per channel: a connection under the current code wins over one under a former code. */
function oneEach(found: { summary: ConnectionSummary; former: boolean }[]): ConnectionSummary[] {
  const by = new Map<string, { summary: ConnectionSummary; former: boolean }>();
  for (const f of found) {
    const held = by.get(f.summary.channel);
    if (!held || (held.former && !f.former)) by.set(f.summary.channel, f);
  }
  return [...by.values()].map((f) => f.summary).sort(byChannel);
}

const summary = (s: StoredConnection): ConnectionSummary => ({ channel: s.channel, baseUrl: s.baseUrl, updatedAt: s.updatedAt });
const byChannel = (a: ConnectionSummary, b: ConnectionSummary) => a.channel.localeCompare(b.channel);

// ---------------------------------------------------------------------------------------------
// AWS Secrets Manager

/** `<MARKETPLACE_SECRET_PREFIX>/marketplace/<accountId>/<channel>` */
export function secretName(accountId: number, channel: string): string {
  return `${secretPrefix()}/marketplace/${accountId}/${channel}`;
}

function secretPrefix(): string {
  const prefix = process.env.MARKETPLACE_SECRET_PREFIX?.trim().replace(/\/+$/, '');
  if (!prefix) throw new Error('Missing environment variable MARKETPLACE_SECRET_PREFIX');
  return prefix;
}

let sm: SecretsManagerClient | undefined;
const client = () => (sm ??= new SecretsManagerClient({}));
const errorName = (err: unknown) => (err as { name?: string }).name;
const scheduledForDeletion = (err: unknown) => errorName(err) === 'InvalidRequestException' && /deletion/i.test((err as Error).message);

export const secretsManagerCredentials: MarketplaceCredentialsPort = {
  async get(accountId, channel) {
    for (const code of [channel, ...formerCodesOf(channel)]) {
      const found = await readSecret(secretName(accountId, code));
      if (found) return { channel, baseUrl: found.baseUrl, credentials: found.credentials };
    }
    return undefined;
  },

  async put(accountId, connection) {
    const name = secretName(accountId, connection.channel);
    const SecretString = JSON.stringify(stored(connection));
    let created = false;
    try {
      await client().send(
        new CreateSecretCommand({
          Name: name,
          SecretString,
          Description: `Despacho: account ${accountId}'s ${connection.channel} connection`,
          Tags: secretTags(accountId, connection.channel),
        }),
      );
      created = true;
    } catch (err) {
      if (scheduledForDeletion(err)) await client().send(new RestoreSecretCommand({ SecretId: name }));
      else if (errorName(err) !== 'ResourceExistsException') throw err;
    }
    if (!created) await client().send(new PutSecretValueCommand({ SecretId: name, SecretString }));
    // Replaced: a connection kept under a former code of the channel goes.
    for (const former of formerCodesOf(connection.channel)) await deleteSecret(secretName(accountId, former));
  },

  async remove(accountId, channel) {
    for (const code of [channel, ...formerCodesOf(channel)]) await deleteSecret(secretName(accountId, code));
  },

  async migrateFormer(accountId, channel) {
    let moved = false;
    for (const former of formerCodesOf(channel)) {
      const formerName = secretName(accountId, former);
      const found = await readSecret(formerName);
      if (!found) continue;
      try {
        // CreateSecret is the condition: a connection made under the current name since is newer and stays.
        await client().send(
          new CreateSecretCommand({
            Name: secretName(accountId, channel),
            SecretString: JSON.stringify({ ...found, channel }),
            Description: `Despacho: account ${accountId}'s ${channel} connection`,
            Tags: secretTags(accountId, channel),
          }),
        );
      } catch (err) {
        // Exists: newer, kept. Scheduled for deletion: the account just disconnected; not brought back.
        if (errorName(err) !== 'ResourceExistsException' && !scheduledForDeletion(err)) throw err;
      }
      await deleteSecret(formerName);
      moved = true;
    }
    return moved;
  },

  async list(accountId) {
    const under = `${secretPrefix()}/marketplace/${accountId}/`;
    const found: { summary: ConnectionSummary; former: boolean }[] = [];
    let NextToken: string | undefined;
    do {
      const res = await client().send(new BatchGetSecretValueCommand({ Filters: [{ Key: 'name', Values: [under] }], NextToken }));
      if (res.Errors?.length) throw new Error(`Secrets Manager could not read ${res.Errors.map((e) => `${e.SecretId}: ${e.ErrorCode}`).join(', ')}`);
      for (const s of res.SecretValues ?? []) {
        // The name filter is a case-insensitive prefix match: keep exact names only.
        const code = s.Name?.startsWith(under) ? s.Name.slice(under.length) : undefined;
        if (code === undefined || !syncChannels.includes(canonicalChannel(code) as SyncChannel) || s.SecretString === undefined) continue;
        found.push({ summary: summary(parseStored(s.SecretString, `Secret ${s.Name}`)), former: canonicalChannel(code) !== code });
      }
      NextToken = res.NextToken;
    } while (NextToken);
    return oneEach(found);
  },
};

/** The tags a connection's secret is created with (the policy allows only these keys). */
function secretTags(accountId: number, channel: string) {
  return [
    { Key: 'despacho:account', Value: String(accountId) },
    { Key: 'despacho:channel', Value: channel },
  ];
}

async function readSecret(name: string): Promise<StoredConnection | undefined> {
  try {
    const res = await client().send(new GetSecretValueCommand({ SecretId: name }));
    return res.SecretString === undefined ? undefined : parseStored(res.SecretString, `Secret ${name}`);
  } catch (err) {
    if (errorName(err) === 'ResourceNotFoundException' || scheduledForDeletion(err)) return undefined;
    throw err;
  }
}

/** Deleting what is not there is not an error. */
async function deleteSecret(name: string): Promise<void> {
  try {
    // Credentials an account took back are not kept for a recovery window.
    await client().send(new DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true }));
  } catch (err) {
    if (errorName(err) !== 'ResourceNotFoundException') throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Encrypted local file (the twin)

export class CredentialsUnreadable extends Error {
  override readonly name = 'CredentialsUnreadable';
}

interface EncryptedEntry {
  iv: string;
  tag: string;
  data: string;
}

interface CredentialsFile {
  version: 1;
  /** scrypt's salt for this file's key. */
  salt: string;
  /** `<accountId>/<channel>` -> that connection, encrypted. */
  entries: Record<string, EncryptedEntry>;
}

const scryptParams: ScryptOptions = { N: 2 ** 14, r: 8, p: 1 };

function scrypt(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((done, fail) => scryptCb(secret, salt, 32, scryptParams, (err, key) => (err ? fail(err) : done(key))));
}

/**
 * The twin's store: `<dataDir>/marketplace-credentials.json`. Each connection is encrypted alone
 * with AES-256-GCM (fresh 12-byte IV each write), with its `<accountId>/<channel>` as associated
 * data, so an entry moved to another account or channel fails to decrypt like a tampered one does.
 * The key is scrypt of `MARKETPLACE_CREDENTIALS_KEY`, or else of a random key kept in
 * `<dataDir>/marketplace-credentials.key` (created 0600 on first use), salted per file. Every
 * change rewrites the file atomically (a 0600 temporary file, then rename); changes made by this
 * process are applied one at a time.
 */
export class LocalMarketplaceCredentials implements MarketplaceCredentialsPort {
  readonly file: string;
  private readonly keyFile: string;
  private readonly secret: string | undefined;
  private keys = new Map<string, Promise<Buffer>>();
  private writing: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string, opts: { key?: string } = {}) {
    const dir = resolve(dataDir);
    this.file = join(dir, 'marketplace-credentials.json');
    this.keyFile = join(dir, 'marketplace-credentials.key');
    this.secret = opts.key ?? (process.env.MARKETPLACE_CREDENTIALS_KEY || undefined);
  }

  async get(accountId: number, channel: SyncChannel) {
    const file = await this.read();
    if (!file) return undefined;
    // An entry made before the rename sits under the former code, and is bound to it (its AAD).
    for (const code of [channel, ...formerCodesOf(channel)]) {
      const entry = file.entries[entryKey(accountId, code)];
      if (!entry) continue;
      const { baseUrl, credentials } = await this.decrypt(file, accountId, code, entry);
      return { channel, baseUrl, credentials };
    }
    return undefined;
  }

  async put(accountId: number, connection: MarketplaceConnection) {
    await this.change(async (file) => {
      file.entries[entryKey(accountId, connection.channel)] = await this.encrypt(file, accountId, connection.channel, stored(connection));
      for (const former of formerCodesOf(connection.channel)) delete file.entries[entryKey(accountId, former)];
    });
  }

  async remove(accountId: number, channel: SyncChannel) {
    await this.change(async (file) => {
      for (const code of [channel, ...formerCodesOf(channel)]) delete file.entries[entryKey(accountId, code)];
    });
  }

  async list(accountId: number) {
    const file = await this.read();
    if (!file) return [];
    const found: { summary: ConnectionSummary; former: boolean }[] = [];
    for (const channel of syncChannels) {
      for (const code of [channel, ...formerCodesOf(channel)]) {
        const entry = file.entries[entryKey(accountId, code)];
        if (entry) found.push({ summary: summary(await this.decrypt(file, accountId, code, entry)), former: code !== channel });
      }
    }
    return oneEach(found);
  }

  async migrateFormer(accountId: number, channel: SyncChannel) {
    let moved = false;
    await this.change(async (file) => {
      for (const former of formerCodesOf(channel)) {
        const entry = file.entries[entryKey(accountId, former)];
        if (!entry) continue;
        if (!file.entries[entryKey(accountId, channel)]) {
          const value = await this.decrypt(file, accountId, former, entry);
          file.entries[entryKey(accountId, channel)] = await this.encrypt(file, accountId, channel, { ...value, channel });
        }
        delete file.entries[entryKey(accountId, former)];
        moved = true;
      }
    });
    return moved;
  }

  private async read(): Promise<CredentialsFile | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    let file: CredentialsFile | undefined;
    try {
      file = JSON.parse(text) as CredentialsFile;
    } catch {
      file = undefined;
    }
    if (file?.version !== 1 || typeof file.salt !== 'string' || typeof file.entries !== 'object') {
      throw new CredentialsUnreadable(`${this.file} is not a marketplace credentials file`);
    }
    return file;
  }

  /** Read, change, write back; one change at a time. */
  private change(fn: (file: CredentialsFile) => Promise<void>): Promise<void> {
    const run = this.writing.then(async () => {
      const file = (await this.read()) ?? { version: 1, salt: randomBytes(16).toString('base64'), entries: {} };
      await fn(file);
      await this.write(file);
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async write(file: CredentialsFile) {
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

  private key(salt: string): Promise<Buffer> {
    let key = this.keys.get(salt);
    if (!key) {
      key = this.keyMaterial().then((secret) => scrypt(secret, Buffer.from(salt, 'base64')));
      key.catch(() => this.keys.delete(salt));
      this.keys.set(salt, key);
    }
    return key;
  }

  private async keyMaterial(): Promise<string> {
    if (this.secret) return this.secret;
    try {
      return (await readFile(this.keyFile, 'utf8')).trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await mkdir(resolve(this.keyFile, '..'), { recursive: true });
    try {
      await writeFile(this.keyFile, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another store made it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return (await readFile(this.keyFile, 'utf8')).trim();
  }

  private async encrypt(file: CredentialsFile, accountId: number, channel: string, value: StoredConnection): Promise<EncryptedEntry> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.key(file.salt), iv);
    cipher.setAAD(Buffer.from(entryKey(accountId, channel)));
    const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  private async decrypt(file: CredentialsFile, accountId: number, channel: string, entry: EncryptedEntry): Promise<StoredConnection> {
    const where = `account ${accountId}'s ${channel} credentials`;
    const key = await this.key(file.salt);
    let json: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(entry.iv, 'base64'), { authTagLength: 16 });
      decipher.setAAD(Buffer.from(entryKey(accountId, channel)));
      decipher.setAuthTag(Buffer.from(entry.tag, 'base64'));
      json = Buffer.concat([decipher.update(Buffer.from(entry.data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new CredentialsUnreadable(`The stored ${where} cannot be decrypted: the file was changed, or the key is not the one they were stored with.`);
    }
    return parseStored(json, `The stored ${where}`);
  }
}

/** Also the entry's AAD: an entry stored under a former code decrypts only under that code. */
const entryKey = (accountId: number, channel: string) => `${accountId}/${channel}`;

// ---------------------------------------------------------------------------------------------

let current: MarketplaceCredentialsPort = secretsManagerCredentials;

export function marketplaceCredentials(): MarketplaceCredentialsPort {
  return current;
}

export function useMarketplaceCredentials(port: MarketplaceCredentialsPort): void {
  current = port;
}
