import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { forward, listenLocal } from './table-tap';

/*
 * Point-in-time recovery on the cloud lane, which DynamoDB Local does not have
 * (docs/developers/cloud-lane.md, "The restore drill"). For a table whose template turns point-in-time
 * recovery on, the lane turns a stream on (NEW_AND_OLD_IMAGES) when it creates it, and this
 * endpoint, in front of DynamoDB Local, answers `RestoreTableToPointInTime` as DynamoDB does: a new
 * table with the source's keys and indexes, holding the items as they were at `RestoreDateTime`
 * (the table now, with every change recorded after that time undone, newest first). DynamoDB
 * Local rounds a stream record's ApproximateCreationDateTime down to the minute, so the lane reads
 * the stream every `pollMs` and stamps each change with the time it saw it: a change's time is
 * its write's to within that poll.
 * Every other request goes to DynamoDB Local unchanged, so the runbook's AWS CLI commands run
 * against it as written (`--endpoint-url`). The stream is the lane's, not the template's: nothing
 * of ours reads it, and DynamoDB Local keeps its records 24 hours, the window a drill here has.
 */

type Json = Record<string, any>;
const amzJson = 'application/x-amz-json-1.0';
/** DynamoDB Local checks that a request is signed, not the signature. */
const authorization = 'AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-target, Signature=0';

export class PitrError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

async function call(dynamoUrl: string, target: string, body: Json): Promise<Json> {
  const res = await fetch(dynamoUrl, { method: 'POST', headers: { 'content-type': amzJson, 'x-amz-target': target, authorization }, body: JSON.stringify(body) });
  const text = await res.text();
  const out = text ? (JSON.parse(text) as Json) : {};
  if (!res.ok) throw new PitrError(String(out.__type ?? 'InternalServerError').split('#').pop()!, String(out.message ?? out.Message ?? text));
  return out;
}

const ddb = (url: string, op: string, body: Json) => call(url, `DynamoDB_20120810.${op}`, body);
const streams = (url: string, op: string, body: Json) => call(url, `DynamoDBStreams_20120810.${op}`, body);

/** The stream the lane adds to a table with point-in-time recovery: what a restore reads its changes from. */
export const pitrStream = { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } as const;

/** A change read from a table's stream, with the time the lane saw it (ms). */
interface Change {
  record: Json;
  at: number;
}

/**
 * The changes of one table, read from its stream every `pollMs` and kept 24 hours (the stream's
 * own retention, and so the restore window on the lane).
 */
export class ChangeJournal {
  readonly changes: Change[] = [];
  private readonly iterators = new Map<string, string | undefined>();
  private stopped = false;
  private loop: Promise<void> | undefined;
  private pass: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    readonly table: string,
    private readonly streamArn: string,
    private readonly pollMs = 200,
  ) {}

  start(): void {
    this.loop ??= (async () => {
      while (!this.stopped) {
        await this.read().catch(() => undefined);
        await new Promise((r) => setTimeout(r, this.pollMs));
      }
    })();
  }

  /** Resolves once every change written before the call is in the journal (a pass started after it). */
  caughtUp(): Promise<void> {
    return this.read();
  }

  private read(): Promise<void> {
    const pass = (this.pass = this.readAll());
    return pass;
  }

  private async readAll(): Promise<void> {
    await this.pass?.catch(() => undefined);
    let start: string | undefined;
    do {
      const d = await streams(this.url, 'DescribeStream', { StreamArn: this.streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) });
      for (const shard of d.StreamDescription.Shards as Json[]) {
        if (!this.iterators.has(shard.ShardId)) {
          this.iterators.set(shard.ShardId, (await streams(this.url, 'GetShardIterator', { StreamArn: this.streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' })).ShardIterator);
        }
        let iterator = this.iterators.get(shard.ShardId);
        while (iterator) {
          const page = await streams(this.url, 'GetRecords', { ShardIterator: iterator, Limit: 1000 });
          const seen = Date.now();
          for (const record of page.Records as Json[]) this.changes.push({ record, at: seen });
          this.iterators.set(shard.ShardId, page.NextShardIterator);
          // An open shard answers an empty page with a next iterator: as far as it goes now.
          if (!(page.Records as Json[]).length) break;
          iterator = page.NextShardIterator;
        }
      }
      start = d.StreamDescription.LastEvaluatedShardId;
    } while (start);
    const oldest = Date.now() - 24 * 3_600_000;
    while (this.changes.length && this.changes[0].at < oldest) this.changes.shift();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

/** Starts a journal for each table of DynamoDB Local that has the lane's stream, by table name. */
export async function startJournals(url: string, tables: string[], pollMs?: number): Promise<Map<string, ChangeJournal>> {
  const out = new Map<string, ChangeJournal>();
  for (const table of tables) {
    const t = (await ddb(url, 'DescribeTable', { TableName: table })).Table as Json;
    if (!t.LatestStreamArn) continue;
    const journal = new ChangeJournal(url, table, t.LatestStreamArn, pollMs);
    await journal.caughtUp();
    journal.start();
    out.set(table, journal);
  }
  return out;
}

/** RestoreTableToPointInTime, as DynamoDB answers it: the new table's description. */
export async function restoreToPointInTime(url: string, journals: Map<string, ChangeJournal>, input: Json): Promise<Json> {
  const source = String(input.SourceTableName ?? '');
  const target = String(input.TargetTableName ?? '');
  if (!source || !target) throw new PitrError('ValidationException', 'SourceTableName and TargetTableName are required');
  const table = (await ddb(url, 'DescribeTable', { TableName: source }).catch((err: PitrError) => {
    throw err.type === 'ResourceNotFoundException' ? new PitrError('SourceTableNotFoundException', `Source table not found: ${source}`) : err;
  })).Table as Json;
  const journal = journals.get(source);
  if (!journal) throw new PitrError('PointInTimeRecoveryUnavailableException', `Point in time recovery is not enabled for table '${source}'`);
  await journal.caughtUp();
  const now = Date.now();
  const earliest = Number(table.CreationDateTime) * 1000;
  const at = input.UseLatestRestorableTime ? now : Number(input.RestoreDateTime) * 1000;
  if (!Number.isFinite(at) || at < earliest || at > now) throw new PitrError('InvalidRestoreTimeException', `RestoreDateTime must be between ${new Date(earliest).toISOString()} and ${new Date(now).toISOString()}`);

  // The items now, then every change after the restore time undone, newest first.
  const keyNames = (table.KeySchema as Json[]).map((k) => k.AttributeName as string);
  const keyOf = (item: Json) => JSON.stringify(keyNames.map((k) => item[k]));
  const items = new Map<string, Json>();
  let startKey: Json | undefined;
  do {
    const page = await ddb(url, 'Scan', { TableName: source, ConsistentRead: true, ...(startKey ? { ExclusiveStartKey: startKey } : {}) });
    for (const item of page.Items as Json[]) items.set(keyOf(item), item);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const after = journal.changes.filter((c) => c.at > at).map((c) => c.record);
  for (const r of after.reverse()) {
    const key = keyOf(r.dynamodb.Keys);
    if (r.eventName === 'INSERT') items.delete(key);
    else items.set(key, r.dynamodb.OldImage);
  }

  const index = (i: Json) => ({ IndexName: i.IndexName, KeySchema: i.KeySchema, Projection: i.Projection });
  await ddb(url, 'CreateTable', {
    TableName: target,
    AttributeDefinitions: table.AttributeDefinitions,
    KeySchema: table.KeySchema,
    BillingMode: 'PAY_PER_REQUEST',
    ...(table.GlobalSecondaryIndexes?.length ? { GlobalSecondaryIndexes: (table.GlobalSecondaryIndexes as Json[]).map(index) } : {}),
    ...(table.LocalSecondaryIndexes?.length ? { LocalSecondaryIndexes: (table.LocalSecondaryIndexes as Json[]).map(index) } : {}),
  }).catch((err: PitrError) => {
    throw err.type === 'ResourceInUseException' ? new PitrError('TableAlreadyExistsException', `Table already exists: ${target}`) : err;
  });
  const all = [...items.values()];
  for (let i = 0; i < all.length; i += 25) {
    let requests: Json = { [target]: all.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
    while (Object.keys(requests).length) requests = (await ddb(url, 'BatchWriteItem', { RequestItems: requests })).UnprocessedItems ?? {};
  }
  const restored = (await ddb(url, 'DescribeTable', { TableName: target })).Table as Json;
  return {
    TableDescription: {
      ...restored,
      RestoreSummary: { SourceTableArn: table.TableArn, RestoreDateTime: at / 1000, RestoreInProgress: false },
    },
  };
}

/**
 * The operator's DynamoDB endpoint on the lane: RestoreTableToPointInTime played here, everything
 * else passed to DynamoDB Local byte for byte.
 */
export async function startPitrEndpoint(dynamoUrl: string, journals: Map<string, ChangeJournal>): Promise<{ url: string; close(): void }> {
  const to = new URL(dynamoUrl);
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.headers['x-amz-target'] === 'DynamoDB_20120810.RestoreTableToPointInTime') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const answer = (status: number, body: Json) => {
          res.writeHead(status, { 'content-type': amzJson });
          res.end(JSON.stringify(body));
        };
        let input: Json;
        try {
          input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
        } catch {
          return answer(400, { __type: 'com.amazon.coral.service#SerializationException', message: 'The body is not JSON' });
        }
        restoreToPointInTime(dynamoUrl, journals, input).then(
          (out) => answer(200, out),
          (err: Error) => answer(err instanceof PitrError ? 400 : 500, { __type: `com.amazonaws.dynamodb.v20120810#${err instanceof PitrError ? err.type : 'InternalServerError'}`, message: err.message }),
        );
      });
      return;
    }
    forward(to, req, res);
  });
  return listenLocal(server);
}
