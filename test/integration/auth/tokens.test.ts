import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { subscriptionsOf } from '#services/webhooks/webhooks';
import { authorizer } from '#catalog';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { documentClient } from '#infra/dynamo';
import { touchToken } from '#infra/entities/auth/token-raw';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { inject } from 'vitest';
import { adminToken, useTwin } from '#support/twin';

const t = useTwin();

/** The twin's authorizer runs so far. */
async function authorizerInvocations(): Promise<number> {
  return t.twin.authorizerInvocations();
}

async function tableText(): Promise<string> {
  const client = new DynamoDBClient({ endpoint: inject('dynamoEndpoint') });
  const res = await client.send(new ScanCommand({ TableName: t.tableName }));
  client.destroy();
  return JSON.stringify(res.Items);
}

describe('bearer tokens', () => {
  it("answers a call without a token with API Gateway's own 401 (and the twin's hint), before any function runs", async () => {
    const invocations = await authorizerInvocations();
    const res = await t.call('GET', '/v1/me', { token: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Unauthorized', hint: expect.stringContaining('No Authorization header') });
    expect(res.headers.get('apigw-requestid')).toBeTruthy();
    expect(await authorizerInvocations()).toBe(invocations);
  });

  it('answers an empty Authorization header as a missing one', async () => {
    const res = await t.call('GET', '/v1/me', { token: null, headers: { authorization: '' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Unauthorized', hint: expect.stringContaining('No Authorization header') });
  });

  it("answers a token that is not one with the service's 401 body", async () => {
    const res = await t.call('GET', '/v1/me', { token: 'dsp_not-a-real-token-at-all' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: expect.stringMatching(/^Authorization: this bearer token is not known here or was revoked\./), error: 'unauthorized' });
  });

  it('answers an unknown or malformed token with 401', async () => {
    for (const header of ['Bearer dsp_not-a-real-token-at-all', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer short']) {
      const res = await t.call('GET', '/v1/me', { token: null, headers: { authorization: header } });
      expect(res.status, header).toBe(401);
    }
  });

  it('refuses two Authorization headers, the valid token first or second: API Gateway joins them into one value', async () => {
    const partner = await t.account('Two Headers');
    const twice = (first: string, second: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(`${t.twin.apiUrl}/v1/me`);
        // Two header lines: fetch would join them itself before sending.
        const req = request(url, { headers: ['Host', url.host, 'Authorization', first, 'Authorization', second] }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await twice(`Bearer ${partner.token}`, 'Bearer dsp_not-a-real-token-at-all')).toBe(401);
    expect(await twice('Bearer dsp_not-a-real-token-at-all', `Bearer ${partner.token}`)).toBe(401);
    expect(await twice(`Bearer ${partner.token}`, `Bearer ${partner.token}`)).toBe(401);
    expect((await t.call('GET', '/v1/me', { token: partner.token })).status).toBe(200);
  });

  it('issues a random token of at least 32 bytes, shown once', async () => {
    const { accountId, token, tokenId } = await t.account('Shown Once');
    expect(token).toMatch(/^dsp_[A-Za-z0-9_-]{43,}$/);
    expect(Buffer.from(token.slice(4), 'base64url').length).toBeGreaterThanOrEqual(32);
    const list = await t.call('GET', `/v1/admin/tokens?account_id=${accountId}`);
    expect(list.body.data.map((x: { id: number }) => x.id)).toEqual([tokenId]);
    expect(list.text).not.toContain(token);
  });

  it('stores only the SHA-256 hash of a token', async () => {
    const { token } = await t.account('Hash Only');
    const stored = await tableText();
    expect(stored).not.toContain(token);
    expect(stored).toContain(createHash('sha256').update(token).digest('hex'));
  });

  it('lets a partner token call its own endpoints and records last_used_at', async () => {
    const { accountId, token, tokenId } = await t.account('Acme Couriers', { scopes: ['orders:read'] });
    const me = await t.call('GET', '/v1/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ account: { id: accountId, name: 'Acme Couriers', kind: 'partner' }, token: { id: tokenId, role: 'partner', scopes: ['orders:read'] } });
    const list = await t.call('GET', `/v1/admin/tokens?account_id=${accountId}`);
    expect(list.body.data[0].last_used_at).toMatch(/Z$/);
  });

  it('writes last_used_at at most once a minute, with no table write for the calls in between', async () => {
    const { token } = await t.account('Poller Couriers');
    const tokenHash = createHash('sha256').update(token).digest('hex');
    const at = new Date('2026-11-23T12:00:00.000Z');
    const sent: string[] = [];
    const client = documentClient();
    const send = client.send.bind(client);
    const spy = vi.spyOn(client, 'send').mockImplementation(((command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      return send(command as never);
    }) as never);
    try {
      await touchToken(tokenHash, at, new Date(at.getTime() - 30_000).toISOString());
      expect(sent).toEqual([]);
      await touchToken(tokenHash, at, new Date(at.getTime() - 61_000).toISOString());
      await touchToken(tokenHash, at, undefined);
      expect(sent).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
    const list = await t.call('GET', '/v1/me', { token });
    expect(list.status).toBe(200);
  });

  it("refuses a revoked token on its very next request, while the authorizer's answer is still cached, and after", async () => {
    const clock = manualClock(new Date());
    useClock(clock);
    try {
      const { token, tokenId, accountId } = await t.account('Revoked Ltd');
      // The authorizer's answer is cached now (API Gateway keeps it cacheTtlSeconds per token).
      expect((await t.call('GET', '/v1/me', { token })).status).toBe(200);
      const del = await t.call('DELETE', `/v1/admin/tokens/${tokenId}`);
      expect(del.status).toBe(200);
      expect(del.body.data).toMatchObject({ id: tokenId, active: false });
      expect(del.body.data.revoked_at).toMatch(/Z$/);
      // A write and a read at once, then at each second of the cache's time: refused by the route itself.
      const write = await t.call('POST', '/webhook-subscriptions', { token, body: { endpoint_url: 'https://example.com/hook', events: ['document.uploaded'] } });
      expect(write.status).toBe(401);
      expect(write.body).toMatchObject({ success: false, error: 'token_revoked' });
      for (let s = 0; s <= authorizer.cacheTtlSeconds; s += 15) {
        const read = await t.call('GET', '/v1/me', { token });
        expect(read.status, `${s} s after the revocation`).toBe(401);
        clock.advance(15_000);
      }
      // Once the cache's time is over, the authorizer refuses it itself.
      clock.advance(authorizer.cacheTtlSeconds * 1000);
      const after = await t.call('GET', '/v1/me', { token });
      expect(after.status).toBe(401);
      expect(after.body.success).toBe(false);
      expect(await subscriptionsOf(accountId)).toEqual([]);
    } finally {
      useSystemClock();
    }
  });

  it('revokes with cascade=true the tokens a token issued and disables the subscriptions it made, and says which', async () => {
    const partner = await t.account('Cascade SA');
    // An admin token issues a token for the partner; the partner's token makes a subscription.
    const operator = (await t.call('GET', '/v1/me')).body.data.account.id;
    const issuer = await t.call('POST', '/v1/admin/tokens', { body: { account_id: operator, name: 'issuer', role: 'admin' } });
    expect(issuer.status).toBe(201);
    const issued = await t.call('POST', '/v1/admin/tokens', { token: issuer.body.data.token, body: { account_id: partner.accountId, name: 'handed out', role: 'partner' } });
    expect(issued.status).toBe(201);
    expect(issued.body.data.created_by_token_id).toBe(issuer.body.data.id);
    const sub = await t.call('POST', '/webhook-subscriptions', { token: partner.token, body: { endpoint_url: 'https://hooks.example.com/cascade', events: ['document.uploaded'] } });
    expect(sub.status).toBe(201);
    expect(sub.body.data.created_by).toEqual({ token_id: partner.tokenId, name: 'Cascade SA token' });

    const plain = await t.call('DELETE', `/v1/admin/tokens/${issuer.body.data.id}`);
    expect(plain.body.cascaded).toEqual({ tokens: [], subscriptions: [] });
    expect((await t.call('GET', '/v1/me', { token: issued.body.data.token })).status).toBe(200);

    const own = await t.call('DELETE', `/v1/me/tokens/${partner.tokenId}?cascade=true`, { token: partner.token });
    expect(own.status).toBe(200);
    expect(own.body.cascaded).toEqual({ tokens: [], subscriptions: [sub.body.data.id] });
    const shown = await t.call('GET', `/webhook-subscriptions/${sub.body.data.id}`, { token: issued.body.data.token });
    expect(shown.body.data).toMatchObject({ active: false, disabled_reason: `The token that created it (${partner.tokenId}) was revoked.` });

    const again = await t.call('DELETE', `/v1/admin/tokens/${issuer.body.data.id}?cascade=true`);
    expect(again.body.cascaded).toEqual({ tokens: [issued.body.data.id], subscriptions: [] });
    expect((await t.call('GET', '/v1/me', { token: issued.body.data.token })).status).toBe(401);
    expect((await t.call('DELETE', `/v1/admin/tokens/${issuer.body.data.id}?cascade=yes`)).status).toBe(422);
  });

  it('answers revoking an unknown token with 404', async () => {
    const res = await t.call('DELETE', '/v1/admin/tokens/987654');
    expect(res.status).toBe(404);
  });

  it("gives a token only the role of its account's kind", async () => {
    const { accountId } = await t.account('No Admin Here');
    const res = await t.call('POST', '/v1/admin/tokens', { body: { account_id: accountId, name: 'escalate', role: 'admin' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('role');
  });

  it('refuses a token for an account that does not exist', async () => {
    const res = await t.call('POST', '/v1/admin/tokens', { body: { account_id: 424242, name: 'x', role: 'partner' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('account_id');
  });
});

describe('roles and tenancy', () => {
  it('forbids partners and brokers the operator endpoints', async () => {
    const partner = await t.account('Not An Operator');
    const broker = await t.account('Broker SA', { kind: 'broker' });
    for (const token of [partner.token, broker.token]) {
      expect((await t.call('GET', '/v1/admin/accounts', { token })).status).toBe(403);
      expect((await t.call('POST', '/v1/admin/tokens', { token, body: { account_id: partner.accountId, name: 'x', role: 'admin' } })).status).toBe(403);
    }
  });

  it('lets the admin list accounts and create brokers', async () => {
    const created = await t.call('POST', '/v1/admin/accounts', { body: { name: 'Aduana Broker', kind: 'broker' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ id: expect.any(Number), name: 'Aduana Broker', kind: 'broker' });
    const list = await t.call('GET', '/v1/admin/accounts');
    expect(list.body.data.map((a: { id: number }) => a.id)).toContain(created.body.data.id);
  });

  it("gives account A 404 for account B's token", async () => {
    const a = await t.account('Tenant A');
    const b = await t.account('Tenant B');
    const res = await t.call('DELETE', `/v1/me/tokens/${b.tokenId}`, { token: a.token });
    expect(res.status).toBe(404);
    expect((await t.call('GET', '/v1/me', { token: b.token })).status).toBe(200);
  });

  it("lists only the caller's own account's tokens", async () => {
    const a = await t.account('Lister A');
    await t.account('Lister B');
    const res = await t.call('GET', '/v1/me/tokens', { token: a.token });
    expect(res.body.data.map((x: { account_id: number }) => x.account_id)).toEqual([a.accountId]);
  });

  it('lets a partner revoke its own token, which stops working on the next request', async () => {
    const clock = manualClock(new Date());
    useClock(clock);
    try {
      const a = await t.account('Self Revoker');
      const spare = await t.account('Self Revoker spare');
      const res = await t.call('DELETE', `/v1/me/tokens/${a.tokenId}`, { token: a.token });
      expect(res.status).toBe(200);
      // The revoked token cannot revoke another token, not even within the authorizer's cache time.
      expect((await t.call('DELETE', `/v1/me/tokens/${spare.tokenId}`, { token: a.token })).status).toBe(401);
      expect((await t.call('GET', '/v1/me', { token: a.token })).status).toBe(401);
      clock.advance(authorizer.cacheTtlSeconds * 1000);
      expect((await t.call('GET', '/v1/me', { token: a.token })).status).toBe(401);
      expect((await t.call('GET', '/v1/me', { token: spare.token })).status).toBe(200);
    } finally {
      useSystemClock();
    }
  });

  it('keeps the seeded admin token working', async () => {
    const res = await t.call('GET', '/v1/me', { token: adminToken });
    expect(res.body.data).toMatchObject({ account: { kind: 'operator' }, token: { role: 'admin' } });
  });
});
