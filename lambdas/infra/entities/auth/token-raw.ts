import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../dynamo';
import { isConditionalFailure } from '../conditional';
import { config } from '#shared/config';
import type { TokenRecord } from '#core/auth/accounts';

/**
 * The Authorizer's three table operations on a token, without ElectroDB (decisions.md 27): its
 * read by hash, its last use and the one write-out of its legacy scopes. ElectroDB is about
 * 190 KB of a bundle and most of a function's module init; the Authorizer, in front of every
 * protected request, needs no more of it than these three, so they are written here with the
 * document client, on the very items the `tokens()` entity (./token.ts) writes: its key (the
 * `byHash` index, which ElectroDB lower-cases), its attribute names (no `field` mappings), its
 * identifiers (`__edb_e__`, `__edb_v__`) and the condition expressions its `patch` builds.
 * Everything else reads and writes tokens through the entity.
 *
 * test/integration/auth/token-raw.test.ts holds the two to each other against DynamoDB Local: a
 * token the entity wrote reads the same both ways, these writes leave the item the entity's writes
 * leave, the key is the entity's, and the attributes here are the entity's.
 */

/** ElectroDB's identifiers as the entity writes them (`model: { entity: 'token', version: '1' }`). */
export const tokenIdentity = { entity: 'token', version: '1' } as const;

/** Every attribute of the entity: what a read returns of an item (keys and identifiers left out). */
export const tokenAttributes = [
  'id', 'tokenHash', 'accountId', 'name', 'role', 'email', 'scopes', 'createdAt',
  'lastUsedAt', 'revokedAt', 'expiresAt', 'createdByTokenId', 'scopesVersion',
] as const satisfies readonly (keyof TokenRecord)[];

/** The entity's `byHash` key: `TOKEN#${tokenHash}` / `TOKEN`, lower-cased as ElectroDB stores it. */
export function tokenKey(tokenHash: string): { pk: string; sk: string } {
  return { pk: `token#${tokenHash}`.toLowerCase(), sk: 'token' };
}

/**
 * The authorizer's lookup: strongly consistent, so a revocation takes effect on the next call.
 * As the entity's `get`: nothing for an item of another entity or version.
 */
export async function readToken(tokenHash: string): Promise<TokenRecord | undefined> {
  const res = await documentClient().send(new GetCommand({ TableName: config.tableName(), Key: tokenKey(tokenHash), ConsistentRead: true }));
  const item = res.Item;
  if (!item || item.__edb_e__ !== tokenIdentity.entity || item.__edb_v__ !== tokenIdentity.version) return undefined;
  const record: Record<string, unknown> = {};
  for (const name of tokenAttributes) if (name in item) record[name] = item[name];
  return record as unknown as TokenRecord;
}

/** What the entity's `patch(...).set(...)` sets beside the given attributes: the hash and its identifiers. */
function patchOf(tokenHash: string, set: Record<string, unknown>) {
  const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk' };
  const values: Record<string, unknown> = {};
  const assignments: string[] = [];
  for (const [name, value] of Object.entries({ ...set, tokenHash, __edb_e__: tokenIdentity.entity, __edb_v__: tokenIdentity.version })) {
    names[`#${name}`] = name;
    values[`:${name}_u0`] = value;
    assignments.push(`#${name} = :${name}_u0`);
  }
  return {
    TableName: config.tableName(),
    Key: tokenKey(tokenHash),
    UpdateExpression: `SET ${assignments.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ReturnValues: 'NONE' as const,
  };
}

/** How stale `last_used_at` may get: a token's use is written at most once a minute. */
const touchEveryMs = 60_000;

/**
 * Notes the token's use. The token as just read (`lastUsedAt`) spares the write when it was noted
 * within the minute (a partner polling a status makes no write per call); the write itself stays
 * conditional, so concurrent calls write it once. The condition is the entity's patch's, as it
 * built it (AND before OR: an item that exists and has no last use, or one used before the threshold).
 */
export async function touchToken(tokenHash: string, at: Date, lastUsedAt?: string): Promise<void> {
  const threshold = new Date(at.getTime() - touchEveryMs).toISOString();
  if (lastUsedAt && lastUsedAt >= threshold) return;
  const update = patchOf(tokenHash, { lastUsedAt: at.toISOString() });
  await documentClient()
    .send(
      new UpdateCommand({
        ...update,
        ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':lastUsedAt0': threshold },
        ConditionExpression: 'attribute_exists(#pk) AND attribute_exists(#sk) AND attribute_not_exists(#lastUsedAt) OR #lastUsedAt < :lastUsedAt0',
      }),
    )
    .catch((err: unknown) => {
      if (!isConditionalFailure(err)) throw err;
    });
}

/**
 * Writes out a token's scopes as every route names them (issue 41): once, on the condition that
 * they were not written before (two first uses at once write them once). False when they were.
 */
export async function writeOutScopes(tokenHash: string, scopes: TokenRecord['scopes']): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        ...patchOf(tokenHash, { scopes, scopesVersion: 2 }),
        ConditionExpression: 'attribute_exists(#pk) AND attribute_exists(#sk) AND attribute_not_exists(#scopesVersion)',
      }),
    );
    return true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return false;
  }
}
