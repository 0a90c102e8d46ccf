import { CreateSecretCommand, DeleteSecretCommand, GetSecretValueCommand, PutSecretValueCommand, RestoreSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { externalCarriers, isExternalCarrier, type CarrierAccount, type CarrierAccountSummary, type ExternalCarrier } from '../core/shipping/carrier-accounts';
import { nowIso } from './clock';

/**
 * Each account's carrier credentials (issue 18), kept like the marketplace connections: in AWS one
 * Secrets Manager secret per account and carrier, on the twin one local file of AES-256-GCM
 * encrypted entries. Only `get` returns a secret; `list` answers summaries.
 *
 * The secrets are named `<prefix>/marketplace/<accountId>/carrier-<carrier>`: under the path the
 * functions' `secrets` grant already covers, with the same two tags, and never a marketplace
 * channel (the marketplace list keeps only channel names).
 */
export interface CarrierCredentialsPort {
  get(accountId: number, carrier: ExternalCarrier): Promise<CarrierAccount | undefined>;
  put(accountId: number, account: CarrierAccount): Promise<void>;
  /** Removing what is not there is not an error. */
  remove(accountId: number, carrier: ExternalCarrier): Promise<void>;
  list(accountId: number): Promise<CarrierAccountSummary[]>;
}

type Stored = CarrierAccount & { updatedAt: string };

function parseStored(json: string, where: string): Stored {
  const value = JSON.parse(json) as Stored;
  if (typeof value?.carrier !== 'string' || !isExternalCarrier(value.carrier) || typeof value.clientId !== 'string' || typeof value.clientSecret !== 'string') {
    throw new Error(`${where} does not hold carrier credentials`);
  }
  return value;
}

const summary = (s: Stored): CarrierAccountSummary => ({ carrier: s.carrier, accountNumber: s.accountNumber, environment: s.environment, updatedAt: s.updatedAt });
const withoutDate = ({ updatedAt: _u, ...account }: Stored): CarrierAccount => account;

// ---------------------------------------------------------------------------------------------
// AWS Secrets Manager

export function carrierSecretName(accountId: number, carrier: ExternalCarrier): string {
  const prefix = process.env.MARKETPLACE_SECRET_PREFIX?.trim().replace(/\/+$/, '');
  if (!prefix) throw new Error('Missing environment variable MARKETPLACE_SECRET_PREFIX');
  return `${prefix}/marketplace/${accountId}/carrier-${carrier}`;
}

let sm: SecretsManagerClient | undefined;
const client = () => (sm ??= new SecretsManagerClient({}));
const errorName = (err: unknown) => (err as { name?: string }).name;
const scheduledForDeletion = (err: unknown) => errorName(err) === 'InvalidRequestException' && /deletion/i.test((err as Error).message);

async function readSecret(name: string): Promise<Stored | undefined> {
  try {
    const res = await client().send(new GetSecretValueCommand({ SecretId: name }));
    return res.SecretString === undefined ? undefined : parseStored(res.SecretString, `Secret ${name}`);
  } catch (err) {
    if (errorName(err) === 'ResourceNotFoundException' || scheduledForDeletion(err)) return undefined;
    throw err;
  }
}

export const secretsManagerCarrierCredentials: CarrierCredentialsPort = {
  async get(accountId, carrier) {
    const found = await readSecret(carrierSecretName(accountId, carrier));
    return found && withoutDate(found);
  },
  async put(accountId, account) {
    const name = carrierSecretName(accountId, account.carrier);
    const SecretString = JSON.stringify({ ...account, updatedAt: nowIso() });
    try {
      await client().send(
        new CreateSecretCommand({
          Name: name,
          SecretString,
          Description: `Despacho: account ${accountId}'s ${account.carrier} carrier account`,
          Tags: [
            { Key: 'despacho:account', Value: String(accountId) },
            { Key: 'despacho:channel', Value: `carrier-${account.carrier}` },
          ],
        }),
      );
      return;
    } catch (err) {
      if (scheduledForDeletion(err)) await client().send(new RestoreSecretCommand({ SecretId: name }));
      else if (errorName(err) !== 'ResourceExistsException') throw err;
    }
    await client().send(new PutSecretValueCommand({ SecretId: name, SecretString }));
  },
  async remove(accountId, carrier) {
    try {
      await client().send(new DeleteSecretCommand({ SecretId: carrierSecretName(accountId, carrier), ForceDeleteWithoutRecovery: true }));
    } catch (err) {
      if (errorName(err) !== 'ResourceNotFoundException') throw err;
    }
  },
  async list(accountId) {
    // One GetSecretValue per carrier (four): the grant is GetSecretValue, not BatchGetSecretValue.
    const found = await Promise.all(externalCarriers.map((c) => readSecret(carrierSecretName(accountId, c))));
    return found.filter((s): s is Stored => s !== undefined).map(summary);
  },
};

// ---------------------------------------------------------------------------------------------
// Encrypted local file (the twin)

export class CarrierCredentialsUnreadable extends Error {
  override readonly name = 'CarrierCredentialsUnreadable';
}

interface Entry {
  iv: string;
  tag: string;
  data: string;
}
interface CredentialsFile {
  version: 1;
  salt: string;
  entries: Record<string, Entry>;
}

/**
 * `<dataDir>/carrier-credentials.json`, made like the marketplace credentials file: each entry
 * AES-256-GCM encrypted alone with `<accountId>/<carrier>` as associated data, the key scrypt of
 * `MARKETPLACE_CREDENTIALS_KEY` or of the random key in `<dataDir>/marketplace-credentials.key`
 * (shared with the marketplace store, created 0600 on first use), rewritten atomically.
 */
export class LocalCarrierCredentials implements CarrierCredentialsPort {
  readonly file: string;
  private readonly keyFile: string;
  private readonly secret: string | undefined;
  private writing: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string, opts: { key?: string } = {}) {
    const dir = resolve(dataDir);
    this.file = join(dir, 'carrier-credentials.json');
    this.keyFile = join(dir, 'marketplace-credentials.key');
    this.secret = opts.key ?? (process.env.MARKETPLACE_CREDENTIALS_KEY || undefined);
  }

  async get(accountId: number, carrier: ExternalCarrier) {
    const file = await this.read();
    const entry = file?.entries[`${accountId}/${carrier}`];
    return file && entry ? withoutDate(await this.decrypt(file, `${accountId}/${carrier}`, entry)) : undefined;
  }

  async put(accountId: number, account: CarrierAccount) {
    await this.change(async (file) => {
      file.entries[`${accountId}/${account.carrier}`] = await this.encrypt(file, `${accountId}/${account.carrier}`, { ...account, updatedAt: nowIso() });
    });
  }

  async remove(accountId: number, carrier: ExternalCarrier) {
    await this.change(async (file) => {
      delete file.entries[`${accountId}/${carrier}`];
    });
  }

  async list(accountId: number) {
    const file = await this.read();
    if (!file) return [];
    const out: CarrierAccountSummary[] = [];
    for (const carrier of externalCarriers) {
      const entry = file.entries[`${accountId}/${carrier}`];
      if (entry) out.push(summary(await this.decrypt(file, `${accountId}/${carrier}`, entry)));
    }
    return out;
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
    if (file?.version !== 1 || typeof file.salt !== 'string' || typeof file.entries !== 'object') throw new CarrierCredentialsUnreadable(`${this.file} is not a carrier credentials file`);
    return file;
  }

  private change(fn: (file: CredentialsFile) => Promise<void>): Promise<void> {
    const run = this.writing.then(async () => {
      const file = (await this.read()) ?? { version: 1 as const, salt: randomBytes(16).toString('base64'), entries: {} };
      await fn(file);
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
    });
    this.writing = run.catch(() => undefined);
    return run;
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
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return (await readFile(this.keyFile, 'utf8')).trim();
  }

  private keys = new Map<string, Promise<Buffer>>();

  /** scrypt of the key material with the file's salt, worked out once per salt. */
  private key(salt: string): Promise<Buffer> {
    let key = this.keys.get(salt);
    if (!key) {
      key = this.keyMaterial().then(
        (secret) => new Promise<Buffer>((done, fail) => scryptCb(secret, Buffer.from(salt, 'base64'), 32, { N: 2 ** 14, r: 8, p: 1 }, (err, k) => (err ? fail(err) : done(k)))),
      );
      key.catch(() => this.keys.delete(salt));
      this.keys.set(salt, key);
    }
    return key;
  }

  private async encrypt(file: CredentialsFile, aad: string, value: Stored): Promise<Entry> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.key(file.salt), iv);
    cipher.setAAD(Buffer.from(aad));
    const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  private async decrypt(file: CredentialsFile, aad: string, entry: Entry): Promise<Stored> {
    let json: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', await this.key(file.salt), Buffer.from(entry.iv, 'base64'), { authTagLength: 16 });
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(Buffer.from(entry.tag, 'base64'));
      json = Buffer.concat([decipher.update(Buffer.from(entry.data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new CarrierCredentialsUnreadable(`The stored carrier credentials ${aad} cannot be decrypted: the file was changed, or the key is not the one they were stored with.`);
    }
    return parseStored(json, `The stored carrier credentials ${aad}`);
  }
}

let current: CarrierCredentialsPort = secretsManagerCarrierCredentials;
export const carrierCredentials = (): CarrierCredentialsPort => current;
export function useCarrierCredentials(port: CarrierCredentialsPort): void {
  current = port;
}
