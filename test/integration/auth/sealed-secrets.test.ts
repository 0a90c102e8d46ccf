import { beforeEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '#support/service';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { adminToken, useTwin } from '#support/twin';
import { useReceiver, type Received } from '#support/receiver';
import { manifest, submitPath } from '#support/manifests';
import { run } from '#bin/cli';
import { documentClient } from '#infra/dynamo';
import { config } from '#shared/config';
import { manifestSignature } from '#core/manifests/signature';
import { getSubscription, sealLegacySecret } from '#infra/entities/webhooks';
import { migrateSigningSecrets } from '#services/auth/signing-secrets-migration';

/**
 * Issue 31, item 3: webhook and manifest signing secrets are stored sealed (the twin: AES-256-GCM
 * under its local key), so the table holds no secret in clear; items written before keep working
 * and are sealed on use or by `migrate signing-secrets`.
 */
const t = useTwin();
const receiver = useReceiver();
beforeEach(() => receiver.clear());

type Item = Record<string, unknown>;

/** Every item of the test's table, as DynamoDB Local holds it. */
async function rawItems(): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(new ScanCommand({ TableName: config.tableName(), ExclusiveStartKey }));
    items.push(...((page.Items ?? []) as Item[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

async function rawItem(entity: 'account' | 'webhookSubscription', id: number): Promise<Item> {
  const found = (await rawItems()).find((i) => i.__edb_e__ === entity && i.id === id);
  if (!found) throw new Error(`no ${entity} ${id}`);
  return found;
}

/** Writes the item back as the service stored it before issue 31: the secret in clear, nothing sealed. */
async function storeInClear(item: Item, field: 'secret' | 'manifestSigningSecret', secret: string) {
  const { sealedSecret: _s, sealedSigningSecret: _m, ...old } = item;
  await documentClient().send(new PutCommand({ TableName: config.tableName(), Item: { ...old, [field]: secret } }));
}

function verify(r: Received, secret: string) {
  const ts = String(r.headers['x-service-timestamp']);
  return r.headers['x-service-signature'] === 'sha256=' + createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex');
}

async function partnerWithSubscription() {
  const partner = await t.account(`Sealed ${Math.random()}`);
  const res = await t.call('POST', '/webhook-subscriptions', { token: partner.token, body: { endpoint_url: receiver.url, events: ['document.uploaded'] } });
  expect(res.status).toBe(201);
  return { ...partner, sub: res.body.data as { id: number; hmac_secret: string } };
}

async function cli(argv: string[]) {
  let stdout = '';
  const code = await run(argv, { env: { DESPACHO_URL: t.twin.apiUrl, DESPACHO_TOKEN: adminToken }, stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stdout += c) } });
  return { code, stdout };
}

describe('signing secrets at rest', () => {
  it('leaves no webhook or manifest signing secret in clear in DynamoDB Local: the items hold ciphertext only', async () => {
    const { accountId, token, sub } = await partnerWithSubscription();
    const rotated = (await t.call('POST', `/webhook-subscriptions/${sub.id}/rotate-secret`, { token })).body.data.hmac_secret as string;
    const signing = (await t.call('POST', `/v1/admin/accounts/${accountId}/signing-secret`)).body.data.secret as string;
    const secrets = [sub.hmac_secret, rotated, signing];

    const everything = JSON.stringify(await rawItems());
    for (const s of secrets) expect(everything).not.toContain(s);
    // Not even their random part (the text after whsec_ / mss_), in any encoding of the items.
    for (const s of secrets) expect(everything).not.toContain(s.slice(s.indexOf('_') + 1));

    const subItem = await rawItem('webhookSubscription', sub.id);
    expect(subItem.sealedSecret).toMatch(/^local1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(subItem).not.toHaveProperty('secret');
    const accountItem = await rawItem('account', accountId);
    expect(accountItem.sealedSigningSecret).toMatch(/^local1\./);
    expect(accountItem).not.toHaveProperty('manifestSigningSecret');

    // And still what signs and verifies, as before.
    expect((await t.call('POST', `/webhook-subscriptions/${sub.id}/test`, { token })).status).toBe(200);
    expect(verify(receiver.received[0], rotated)).toBe(true);
    const raw = JSON.stringify(manifest(1));
    const headers = { 'content-type': 'application/json', 'x-signature': manifestSignature(signing, raw) };
    expect((await t.call('POST', submitPath(), { token, raw, headers })).status).toBe(202);
  });

  it('does not open a ciphertext copied onto another subscription: that subscription signs nothing with it', async () => {
    const a = await partnerWithSubscription();
    const b = await partnerWithSubscription();
    const itemB = await rawItem('webhookSubscription', b.sub.id);
    await documentClient().send(new PutCommand({ TableName: config.tableName(), Item: { ...itemB, sealedSecret: (await rawItem('webhookSubscription', a.sub.id)).sealedSecret } }));
    const res = await t.call('POST', `/webhook-subscriptions/${b.sub.id}/test`, { token: b.token });
    expect(res.status).toBe(500);
    expect(res.text).not.toContain(a.sub.hmac_secret);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('signing secrets stored in clear before they were sealed', () => {
  it('keep signing and verifying, and are sealed on first use (read-through)', async () => {
    const { accountId, token, sub } = await partnerWithSubscription();
    await t.call('POST', `/v1/admin/accounts/${accountId}/signing-secret`);
    const oldHook = 'whsec_legacyWebhookSecretFromBeforeIssue31xxxxxxxxxxxxxxx';
    const oldSigning = 'mss_legacyManifestSecretFromBeforeIssue31xxxxxxxxxxxxxxx';
    await storeInClear(await rawItem('webhookSubscription', sub.id), 'secret', oldHook);
    await storeInClear(await rawItem('account', accountId), 'manifestSigningSecret', oldSigning);
    expect((await t.call('GET', '/v1/admin/accounts')).body.data.find((a: { id: number }) => a.id === accountId).has_signing_secret).toBe(true);

    expect((await t.call('POST', `/webhook-subscriptions/${sub.id}/test`, { token })).status).toBe(200);
    expect(verify(receiver.received[0], oldHook)).toBe(true);
    const raw = JSON.stringify(manifest(1));
    const wrong = await t.call('POST', submitPath(), { token, raw, headers: { 'content-type': 'application/json', 'x-signature': manifestSignature('another', raw) } });
    expect(wrong.status).toBe(401);
    const right = await t.call('POST', submitPath(), { token, raw, headers: { 'content-type': 'application/json', 'x-signature': manifestSignature(oldSigning, raw) } });
    expect(right.status).toBe(202);

    const everything = JSON.stringify(await rawItems());
    expect(everything).not.toContain(oldHook);
    expect(everything).not.toContain(oldSigning);
    expect((await rawItem('webhookSubscription', sub.id)).sealedSecret).toMatch(/^local1\./);
    expect((await rawItem('account', accountId)).sealedSigningSecret).toMatch(/^local1\./);
    // Sealed, the same secrets: a second use signs with the old secret still.
    expect((await t.call('POST', `/webhook-subscriptions/${sub.id}/test`, { token })).status).toBe(200);
    expect(verify(receiver.received[1], oldHook)).toBe(true);
  });

  it('are all sealed by migrate signing-secrets, which is idempotent and goes on from a cursor', async () => {
    const first = await partnerWithSubscription();
    const second = await partnerWithSubscription();
    const oldHooks = [`whsec_migrateMe1${'x'.repeat(30)}`, `whsec_migrateMe2${'x'.repeat(30)}`];
    const oldSigning = `mss_migrateMe${'y'.repeat(30)}`;
    await storeInClear(await rawItem('webhookSubscription', first.sub.id), 'secret', oldHooks[0]);
    await storeInClear(await rawItem('webhookSubscription', second.sub.id), 'secret', oldHooks[1]);
    const account = await rawItem('account', second.accountId);
    await storeInClear(account, 'manifestSigningSecret', oldSigning);

    // One account a call: the cursor leads on to the next.
    const partial = await migrateSigningSecrets({}, { budgetMs: -1 });
    expect(partial).toMatchObject({ done: false, accounts: 1, cursor: expect.any(String) });

    const ran = await cli(['migrate', 'signing-secrets']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^Done: accounts \d+, manifest secrets sealed 1, webhook secrets sealed 2\.$/m);
    const everything = JSON.stringify(await rawItems());
    for (const s of [...oldHooks, oldSigning]) expect(everything).not.toContain(s);
    expect(everything).not.toMatch(/"(secret|manifestSigningSecret)":/);

    const again = await cli(['migrate', 'signing-secrets']);
    expect(again.stdout).toMatch(/manifest secrets sealed 0, webhook secrets sealed 0\./);

    // The migrated secrets are the ones the receivers hold.
    expect((await t.call('POST', `/webhook-subscriptions/${second.sub.id}/test`, { token: second.token })).status).toBe(200);
    expect(verify(receiver.received[0], oldHooks[1])).toBe(true);
    const raw = JSON.stringify(manifest(1));
    expect((await t.call('POST', submitPath(), { token: second.token, raw, headers: { 'content-type': 'application/json', 'x-signature': manifestSignature(oldSigning, raw) } })).status).toBe(202);
  });

  it('are not sealed over a secret rotated since: the conditional write loses and the rotated secret stays', async () => {
    const { token, sub } = await partnerWithSubscription();
    await storeInClear(await rawItem('webhookSubscription', sub.id), 'secret', `whsec_beforeRotation${'z'.repeat(30)}`);
    const stale = (await getSubscription(sub.id))!;
    expect(stale.legacySecret).toBeDefined();
    const rotated = (await t.call('POST', `/webhook-subscriptions/${sub.id}/rotate-secret`, { token })).body.data.hmac_secret as string;
    expect(await sealLegacySecret(stale)).toBe(false);
    expect((await t.call('POST', `/webhook-subscriptions/${sub.id}/test`, { token })).status).toBe(200);
    expect(verify(receiver.received[0], rotated)).toBe(true);
  });

  it('answers 422 naming cursor for a cursor it did not answer, and is for the admin only', async () => {
    const bad = await t.call('POST', '/v1/admin/migrations/signing-secrets', { body: { cursor: 'bm90LWEtY3Vyc29y' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('cursor');
    expect((await t.call('POST', '/v1/admin/migrations/signing-secrets', { body: { cursor: 'has spaces' } })).body.errors).toHaveProperty('cursor');
    expect((await t.call('POST', '/v1/admin/migrations/signing-secrets', { body: { extra: 1 } })).status).toBe(422);
    const partner = await t.account('Not Admin Sealing');
    expect((await t.call('POST', '/v1/admin/migrations/signing-secrets', { token: partner.token, body: {} })).status).toBe(403);
  });
});

describe('npm start', () => {
  /** Every file under `dir`, as bytes. */
  const filesUnder = (dir: string): { path: string; bytes: Buffer }[] =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name))
      .map((path) => ({ path, bytes: readFileSync(path) }));

  it("keeps no signing secret in clear in DynamoDB Local's files, and signs with the same secrets after a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'despacho-sealed-'));
    const admin = 'sealed-test-admin-token-4242';
    const start = () => startService(dataDir, { ADMIN_TOKEN: admin, LOG_LEVEL: 'WARN', POWERTOOLS_LOG_LEVEL: 'WARN' });
    const stop = (child: Awaited<ReturnType<typeof start>>['child']) => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM')));
    const call = async (apiUrl: string, method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(apiUrl + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    try {
      const first = await start();
      const account = (await call(first.apiUrl, 'POST', '/v1/admin/accounts', admin, { name: 'Sealed Files SA', kind: 'partner' })).body.data;
      const token = (await call(first.apiUrl, 'POST', '/v1/admin/tokens', admin, { account_id: account.id, name: 'n', role: 'partner' })).body.data.token as string;
      const sub = (await call(first.apiUrl, 'POST', '/webhook-subscriptions', token, { endpoint_url: receiver.url, events: ['document.uploaded'] })).body.data;
      const signing = (await call(first.apiUrl, 'POST', `/v1/admin/accounts/${account.id}/signing-secret`, admin)).body.data.secret as string;
      await stop(first.child);

      const files = filesUnder(join(dataDir, 'dynamodb'));
      expect(files.length).toBeGreaterThan(0);
      expect(files.reduce((n, f) => n + f.bytes.length, 0)).toBeGreaterThan(0);
      for (const secret of [sub.hmac_secret as string, signing]) {
        for (const text of [secret, secret.slice(secret.indexOf('_') + 1)]) {
          for (const f of files) expect(f.bytes.includes(Buffer.from(text)), `${text} in ${f.path}`).toBe(false);
        }
      }
      // The twin's key: one file, readable by its owner only.
      expect(statSync(join(dataDir, 'marketplace-credentials.key')).mode & 0o777).toBe(0o600);

      const second = await start();
      expect((await call(second.apiUrl, 'POST', `/webhook-subscriptions/${sub.id}/test`, token)).status).toBe(200);
      expect(verify(receiver.received.at(-1)!, sub.hmac_secret)).toBe(true);
      await stop(second.child);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
