import { isDeepStrictEqual } from 'node:util';
import { DynamoDBClient, GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { documentClient } from '#infra/dynamo';
import { blobs, useBlobs, type BlobPort } from '#infra/blobs';
import { marketplaceCredentials, useMarketplaceCredentials, type MarketplaceCredentialsPort } from '#infra/marketplace-credentials';

type Key = Record<string, AttributeValue>;

/**
 * What a request left behind, for the fuzz's "a refused write leaves nothing behind" (issue 13).
 *
 * Scanning the table around every refused write would cost a scan per request, growing with the
 * table. Instead the journal watches the service's own ways of writing: every write command its
 * one DynamoDB client sends (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems;
 * the twin's queues, timers and events are items written through the same client), every blob
 * stored or deleted, and every marketplace credential stored or removed. Before the first write to
 * a key during a request it reads that key (a consistent GetItem on a client of its own, or the
 * blob's size); after a refused request it reads each again and reports every key whose item,
 * blob or credential is not what it was. So a write that was undone (an idempotency claim given
 * back, an upload's blob deleted on failure) is no finding, and a write that stayed is.
 *
 * Not findings, by design: the authorizer's rate-window counts (`RATE#`) and a token's
 * `lastUsedAt` (every request, refused or not, counts and touches its token), and sequence
 * counters (`COUNTER#`: an id taken by a request that then failed is skipped, as a database
 * sequence skips it).
 */
export class WriteJournal {
  private watching = false;
  private readonly before = new Map<string, { table: string; key: Key; item: Record<string, AttributeValue> | undefined }>();
  private readonly blobsBefore = new Map<string, number | undefined>();
  private readonly credsBefore = new Map<string, string | undefined>();
  private readonly pending: Promise<unknown>[] = [];
  private readonly reader: DynamoDBClient;
  private blobPort!: BlobPort;
  private credPort!: MarketplaceCredentialsPort;
  /** Keys written while watching, all requests together (for the report). */
  writes = 0;

  constructor(endpoint: string) {
    this.reader = new DynamoDBClient({ endpoint });
  }

  /** Hooks into the service's DynamoDB client, blob store and credential store (after the twin started). */
  install(): void {
    const client = documentClient();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (this.watching) await this.remember(context.commandName as string, (args as { input: Record<string, unknown> }).input);
        return next(args);
      },
      { step: 'initialize', name: 'fuzzWriteJournal', priority: 'high' },
    );
    this.blobPort = blobs();
    const port = this.blobPort;
    const journal = this;
    useBlobs(
      new Proxy(port, {
        get(target, prop) {
          const real = Reflect.get(target, prop) as unknown;
          if (typeof real !== 'function') return real;
          if (prop === 'put' || prop === 'putStream' || prop === 'delete') {
            return async (key: string, ...rest: unknown[]) => {
              await journal.rememberBlob(key);
              return (real as (...a: unknown[]) => unknown).call(target, key, ...rest);
            };
          }
          return (real as (...a: unknown[]) => unknown).bind(target);
        },
      }),
    );
    this.credPort = marketplaceCredentials();
    const creds = this.credPort;
    useMarketplaceCredentials({
      get: (a, c) => creds.get(a, c),
      list: (a) => creds.list(a),
      put: async (a, conn) => {
        await this.rememberCred(a, conn.channel);
        return creds.put(a, conn);
      },
      remove: async (a, c) => {
        await this.rememberCred(a, c);
        return creds.remove(a, c);
      },
      migrateFormer: async (a, c) => {
        await this.rememberCred(a, c);
        return creds.migrateFormer(a, c);
      },
    });
  }

  uninstall(): void {
    documentClient().middlewareStack.remove('fuzzWriteJournal');
    if (this.blobPort) useBlobs(this.blobPort);
    if (this.credPort) useMarketplaceCredentials(this.credPort);
    this.reader.destroy();
  }

  /** Starts watching a request. */
  begin(): void {
    this.before.clear();
    this.blobsBefore.clear();
    this.credsBefore.clear();
    this.pending.length = 0;
    this.watching = true;
  }

  /**
   * Stops watching. With `refused`, lists every key that differs from before the request; with
   * `tenant`, lists the changed records that belong to that account (whatever the answer).
   */
  async end(refused: boolean, tenant?: number): Promise<{ refused: string[]; tenant: string[] }> {
    this.watching = false;
    await Promise.allSettled(this.pending);
    const out = { refused: [] as string[], tenant: [] as string[] };
    if (!refused && tenant === undefined) return out;
    for (const [id, b] of this.before) {
      const now = await this.read(b.table, b.key);
      if (sameItem(b.item, now)) continue;
      const line = `${id}: ${describe(b.item)} -> ${describe(now)}`;
      if (refused) out.refused.push(line);
      const owner = (item: Record<string, AttributeValue> | undefined) => item?.accountId?.N;
      if (tenant !== undefined && (owner(b.item) === String(tenant) || owner(now) === String(tenant))) out.tenant.push(line);
    }
    if (!refused) return out;
    for (const [key, size] of this.blobsBefore) {
      const now = await this.blobPort.size(key);
      if (now !== size) out.refused.push(`blob ${key}: ${size ?? 'absent'} -> ${now ?? 'absent'} bytes`);
    }
    for (const [id, was] of this.credsBefore) {
      const [account, channel] = id.split('#');
      const now = await this.credPort.get(Number(account), channel as never);
      if (JSON.stringify(now) !== was) out.refused.push(`marketplace credentials ${id} changed`);
    }
    return out;
  }

  private async remember(command: string, input: Record<string, unknown>) {
    const keys: { table: string; key: Key }[] = [];
    // The document client's commands carry plain values here (marshalling comes later); raw ones, attribute values.
    const text = (x: unknown) => (typeof x === 'string' ? x : (x as { S?: string })?.S ?? JSON.stringify(x));
    const fromItem = (item: Record<string, unknown>): Key => ({ pk: { S: text(item.pk) }, sk: { S: text(item.sk) } });
    switch (command) {
      case 'PutItemCommand':
        keys.push({ table: input.TableName as string, key: fromItem(input.Item as Key) });
        break;
      case 'UpdateItemCommand':
      case 'DeleteItemCommand':
        keys.push({ table: input.TableName as string, key: fromItem(input.Key as Key) });
        break;
      case 'BatchWriteItemCommand':
        for (const [table, reqs] of Object.entries(input.RequestItems as Record<string, { PutRequest?: { Item: Key }; DeleteRequest?: { Key: Key } }[]>)) {
          for (const r of reqs) keys.push({ table, key: fromItem(r.PutRequest ? r.PutRequest.Item : r.DeleteRequest!.Key) });
        }
        break;
      case 'TransactWriteItemsCommand':
        for (const t of input.TransactItems as Record<string, { TableName: string; Item?: Key; Key?: Key }>[]) {
          const w = t.Put ?? t.Update ?? t.Delete;
          if (w) keys.push({ table: w.TableName, key: fromItem(w.Item ?? w.Key!) });
        }
        break;
      default:
        return;
    }
    for (const { table, key } of keys) {
      const id = `${table} ${key.pk.S} ${key.sk.S}`;
      if (this.before.has(id) || ignoredKey(key)) continue;
      this.writes++;
      this.before.set(id, { table, key, item: undefined });
      const read = this.read(table, key).then((item) => void (this.before.get(id)!.item = item));
      this.pending.push(read);
      await read;
    }
  }

  private async rememberBlob(key: string) {
    if (!this.watching || this.blobsBefore.has(key)) return;
    this.writes++;
    this.blobsBefore.set(key, undefined);
    this.blobsBefore.set(key, await this.blobPort.size(key));
  }

  private async rememberCred(account: number, channel: string) {
    const id = `${account}#${channel}`;
    if (!this.watching || this.credsBefore.has(id)) return;
    this.writes++;
    this.credsBefore.set(id, JSON.stringify(await this.credPort.get(account, channel as never)));
  }

  private async read(table: string, key: Key) {
    const res = await this.reader.send(new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true }));
    return res.Item;
  }
}

/** Keys whose writes every request makes, refused or not (see the class comment). */
function ignoredKey(key: Key): boolean {
  const pk = (key.pk?.S ?? '').toLowerCase();
  return pk.startsWith('rate#') || pk.startsWith('counter#');
}

function sameItem(a: Record<string, AttributeValue> | undefined, b: Record<string, AttributeValue> | undefined): boolean {
  if (!a || !b) return a === b;
  const strip = (item: Record<string, AttributeValue>) => {
    const { lastUsedAt: _touched, ...rest } = item;
    return item.pk?.S?.toLowerCase().startsWith('token#') ? rest : item;
  };
  return isDeepStrictEqual(strip(a), strip(b));
}

function describe(item: Record<string, AttributeValue> | undefined): string {
  if (!item) return 'absent';
  const text = JSON.stringify(item);
  return text.length > 300 ? text.slice(0, 300) + '…' : text;
}
