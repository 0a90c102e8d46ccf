import { BatchGetSecretValueCommand, CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { deleteSecret, LocalCredentialsFile, type SealedEntries, readSecretText, scheduledForDeletion, secretErrorName, secretsClient, secretTags, writeSecret } from './sealed-store';
import { canonicalChannel, formerCodesOf, syncChannels, type MarketplaceConnection, type SyncChannel } from '#core/orders/marketplace';
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


export const secretsManagerCredentials: MarketplaceCredentialsPort = {
  async get(accountId, channel) {
    for (const code of [channel, ...formerCodesOf(channel)]) {
      const found = await readSecret(secretName(accountId, code));
      if (found) return { channel, baseUrl: found.baseUrl, credentials: found.credentials };
    }
    return undefined;
  },

  async put(accountId, connection) {
    const description = `Despacho: account ${accountId}'s ${connection.channel} connection`;
    await writeSecret(secretName(accountId, connection.channel), JSON.stringify(stored(connection)), { description, tags: secretTags(accountId, connection.channel) });
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
        await secretsClient().send(
          new CreateSecretCommand({
            Name: secretName(accountId, channel),
            SecretString: JSON.stringify({ ...found, channel }),
            Description: `Despacho: account ${accountId}'s ${channel} connection`,
            Tags: secretTags(accountId, channel),
          }),
        );
      } catch (err) {
        // Exists: newer, kept. Scheduled for deletion: the account just disconnected; not brought back.
        if (secretErrorName(err) !== 'ResourceExistsException' && !scheduledForDeletion(err)) throw err;
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
      const res = await secretsClient().send(new BatchGetSecretValueCommand({ Filters: [{ Key: 'name', Values: [under] }], NextToken }));
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

async function readSecret(name: string): Promise<StoredConnection | undefined> {
  const text = await readSecretText(name);
  return text === undefined ? undefined : parseStored(text, `Secret ${name}`);
}

// ---------------------------------------------------------------------------------------------
// Encrypted local file (the twin)

export { CredentialsUnreadable } from './sealed-store';

/**
 * The twin's store: `<dataDir>/marketplace-credentials.json` (`LocalCredentialsFile`,
 * sealed-store.ts): each connection encrypted alone, with its `<accountId>/<channel>` as associated
 * data, so an entry moved to another account or channel fails to decrypt like a tampered one does.
 */
export class LocalMarketplaceCredentials extends LocalCredentialsFile implements MarketplaceCredentialsPort {
  constructor(dataDir: string, opts: { key?: string } = {}) {
    super(dataDir, 'marketplace-credentials.json', { key: opts.key, what: 'marketplace credentials' });
  }

  async get(accountId: number, channel: SyncChannel) {
    const entries = await this.store.view();
    if (!entries) return undefined;
    // An entry made before the rename sits under the former code, and is bound to it (its AAD).
    for (const code of [channel, ...formerCodesOf(channel)]) {
      if (!entries.has(entryKey(accountId, code))) continue;
      const { baseUrl, credentials } = await open(entries, accountId, code);
      return { channel, baseUrl, credentials };
    }
    return undefined;
  }

  async put(accountId: number, connection: MarketplaceConnection) {
    await this.store.change(async (entries) => {
      await entries.seal(entryKey(accountId, connection.channel), JSON.stringify(stored(connection)));
      for (const former of formerCodesOf(connection.channel)) entries.delete(entryKey(accountId, former));
    });
  }

  async remove(accountId: number, channel: SyncChannel) {
    await this.store.change(async (entries) => {
      for (const code of [channel, ...formerCodesOf(channel)]) entries.delete(entryKey(accountId, code));
    });
  }

  async list(accountId: number) {
    const entries = await this.store.view();
    if (!entries) return [];
    const found: { summary: ConnectionSummary; former: boolean }[] = [];
    for (const channel of syncChannels) {
      for (const code of [channel, ...formerCodesOf(channel)]) {
        if (entries.has(entryKey(accountId, code))) found.push({ summary: summary(await open(entries, accountId, code)), former: code !== channel });
      }
    }
    return oneEach(found);
  }

  async migrateFormer(accountId: number, channel: SyncChannel) {
    let moved = false;
    await this.store.change(async (entries) => {
      for (const former of formerCodesOf(channel)) {
        if (!entries.has(entryKey(accountId, former))) continue;
        if (!entries.has(entryKey(accountId, channel))) {
          const value = await open(entries, accountId, former);
          await entries.seal(entryKey(accountId, channel), JSON.stringify({ ...value, channel }));
        }
        entries.delete(entryKey(accountId, former));
        moved = true;
      }
    });
    return moved;
  }
}

/** A stored connection, decrypted and checked. */
async function open(entries: SealedEntries, accountId: number, channel: string): Promise<StoredConnection> {
  const where = `account ${accountId}'s ${channel} credentials`;
  return parseStored(await entries.open(entryKey(accountId, channel), where), `The stored ${where}`);
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
