import { describe, expect, it, vi } from 'vitest';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { useTwin } from '#support/twin';
import { documentClient } from '#infra/dynamo';
import { tokens } from '#infra/entities/auth/token';
import { findTokenByHash, putToken, writeOutScopes as writeOutScopesByEntity } from '#infra/entities/auth';
import { readToken, tokenAttributes, tokenIdentity, tokenKey, touchToken, writeOutScopes } from '#infra/entities/auth/token-raw';
import { hashToken } from '#core/auth/tokens';
import type { TokenRecord } from '#core/auth/accounts';

/**
 * The Authorizer reads and writes tokens without ElectroDB (infra/entities/auth/token-raw.ts,
 * decisions.md 27); everything else goes through the `tokens()` entity. These hold the two to each
 * other on DynamoDB Local, so a change to the entity (a key, an attribute, its version) that the
 * raw module does not follow fails here.
 */
const t = useTwin();

const table = () => t.tableName;
const rawItem = async (tokenHash: string) =>
  (await documentClient().send(new GetCommand({ TableName: table(), Key: tokenKey(tokenHash), ConsistentRead: true }))).Item;
const byEntity = async (tokenHash: string) => (await tokens().get({ tokenHash }).go({ consistent: true })).data ?? undefined;

let nextId = 900_000;
/** A token written by the entity; every optional attribute filled unless `minimal`. */
async function written(over: Partial<TokenRecord> = {}, minimal = false): Promise<TokenRecord> {
  const tokenHash = hashToken(randomUUID());
  const base = { tokenHash, id: nextId++, accountId: 7, name: 'raw read', role: 'partner' as const, scopes: ['orders:read' as TokenRecord['scopes'][number]], createdAt: '2026-12-01T10:00:00.000Z' };
  const full = {
    email: 'ops@example.com',
    lastUsedAt: '2026-12-06T10:00:00.000Z',
    revokedAt: '2026-12-07T10:00:00.000Z',
    expiresAt: '2027-01-01T00:00:00.000Z',
    createdByTokenId: 1,
    scopesVersion: 2,
  };
  return putToken({ ...base, ...(minimal ? {} : full), ...over });
}

/** An item without what differs between two tokens (their keys, hash and id): what two writes should leave alike. */
function contentOf(item: Record<string, unknown> | undefined) {
  const { pk, sk, gsi1pk, gsi1sk, tokenHash, id, ...rest } = item ?? {};
  return rest;
}

describe('the raw token module and the entity', () => {
  it("builds the entity's key, and knows the entity's attributes and identifiers", () => {
    for (const tokenHash of [hashToken('a token'), 'ABCdef0123', '']) {
      expect(tokenKey(tokenHash)).toEqual(tokens().get({ tokenHash }).params().Key);
    }
    const schema = tokens().schema as unknown as { model: { entity: string; version: string }; attributes: Record<string, { field?: string }> };
    expect([...tokenAttributes].sort()).toEqual(Object.keys(schema.attributes).sort());
    // No attribute is stored under another name: the raw read takes each by its own.
    expect(Object.values(schema.attributes).filter((a) => a.field !== undefined)).toEqual([]);
    expect(tokenIdentity).toEqual({ entity: schema.model.entity, version: schema.model.version });
  });

  it('reads a token the entity wrote exactly as the entity reads it (every attribute, and only the required)', async () => {
    for (const record of [await written(), await written({}, true)]) {
      const entity = await byEntity(record.tokenHash);
      expect(entity).toBeDefined();
      expect(await readToken(record.tokenHash)).toStrictEqual(entity);
      expect(await readToken(record.tokenHash)).toStrictEqual(await findTokenByHash(record.tokenHash));
    }
    // Strongly consistent, as the entity's read was (a revocation counts on the next call): DynamoDB
    // Local cannot show it, so the test looks at the command sent.
    const client = documentClient();
    const spy = vi.spyOn(client, 'send');
    try {
      await readToken(hashToken(randomUUID()));
      expect(spy.mock.calls.map(([command]) => (command as GetCommand).input)).toEqual([expect.objectContaining({ ConsistentRead: true, TableName: table() })]);
    } finally {
      spy.mockRestore();
    }
    // The full record holds every attribute, so the comparison above covers each.
    expect(Object.keys((await byEntity((await written()).tokenHash))!).sort()).toEqual([...tokenAttributes].sort());
  });

  it("finds nothing where the entity finds nothing: no item, or another entity's (or version's) item at the key", async () => {
    const unknown = hashToken(randomUUID());
    expect(await byEntity(unknown)).toBeUndefined();
    expect(await readToken(unknown)).toBeUndefined();
    for (const identity of [{ __edb_e__: 'account', __edb_v__: '1' }, { __edb_e__: 'token', __edb_v__: '2' }, {}]) {
      const tokenHash = hashToken(randomUUID());
      await documentClient().send(new PutCommand({ TableName: table(), Item: { ...tokenKey(tokenHash), ...identity, id: 1, tokenHash, accountId: 1, name: 'x', role: 'admin', scopes: [], createdAt: 'x' } }));
      expect(await byEntity(tokenHash)).toBeUndefined();
      expect(await readToken(tokenHash)).toBeUndefined();
    }
  });

  it('notes a use only past the minute, conditionally, leaving the item the entity\'s patch leaves', async () => {
    const at = new Date('2026-12-07T12:00:00.000Z');
    const threshold = new Date(at.getTime() - 60_000).toISOString();
    const recent = new Date(at.getTime() - 30_000).toISOString();
    const stale = new Date(at.getTime() - 61_000).toISOString();

    // Within the minute: no write, even when the caller does not pass the last use (the condition refuses it).
    const fresh = await written({ lastUsedAt: recent });
    await touchToken(fresh.tokenHash, at);
    expect((await byEntity(fresh.tokenHash))!.lastUsedAt).toBe(recent);

    // Past the minute, or never used: written, and the item is what the entity's patch writes.
    for (const before of [{ lastUsedAt: stale }, { lastUsedAt: undefined }]) {
      const raw = await written(before);
      const entity = await written(before);
      await touchToken(raw.tokenHash, at, before.lastUsedAt);
      await tokens()
        .patch({ tokenHash: entity.tokenHash })
        .set({ lastUsedAt: at.toISOString() })
        .where(({ lastUsedAt }, { notExists, lt }) => `${notExists(lastUsedAt)} OR ${lt(lastUsedAt, threshold)}`)
        .go({ response: 'none' });
      expect((await byEntity(raw.tokenHash))!.lastUsedAt).toBe(at.toISOString());
      expect(contentOf(await rawItem(raw.tokenHash))).toStrictEqual(contentOf(await rawItem(entity.tokenHash)));
    }

    // No token, no item: the write does not create one.
    const missing = hashToken(randomUUID());
    await touchToken(missing, at);
    expect(await rawItem(missing)).toBeUndefined();
  });

  it('writes a legacy token\'s scopes out once, as the entity\'s write-out does, and never over a written one', async () => {
    const legacy = { scopesVersion: undefined, scopes: ['orders:read' as TokenRecord['scopes'][number]] };
    const written2 = ['orders:read', 'orders:write'] as TokenRecord['scopes'];
    const raw = await written(legacy);
    const entity = await written(legacy);
    expect(await writeOutScopes(raw.tokenHash, written2)).toBe(true);
    expect(await writeOutScopesByEntity(entity.tokenHash, written2)).toBe(true);
    expect(await byEntity(raw.tokenHash)).toMatchObject({ scopes: written2, scopesVersion: 2 });
    expect(contentOf(await rawItem(raw.tokenHash))).toStrictEqual(contentOf(await rawItem(entity.tokenHash)));

    // Once: a second write-out (another first use at once) loses and changes nothing.
    const after = await rawItem(raw.tokenHash);
    expect(await writeOutScopes(raw.tokenHash, ['admin'] as TokenRecord['scopes'])).toBe(false);
    expect(await rawItem(raw.tokenHash)).toStrictEqual(after);

    // No token: nothing written, no item created.
    const missing = hashToken(randomUUID());
    expect(await writeOutScopes(missing, written2)).toBe(false);
    expect(await rawItem(missing)).toBeUndefined();
  });
});
