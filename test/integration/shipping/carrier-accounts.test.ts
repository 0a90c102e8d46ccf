import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useTwin } from '#support/twin';
import { carrierAccounts } from '#support/orders';
import { carrierCredentials } from '#infra/carrier-credentials';

const t = useTwin();

const { fedex, usps } = carrierAccounts;

describe('carrier accounts', () => {
  it('connects fedex and usps, lists them without secrets and with masked account numbers, and disconnects', async () => {
    const m = await t.account('Tienda Carriers');
    const put = await t.call('PUT', '/v1/shipping/carriers/fedex', { token: m.token, body: fedex });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ carrier: 'fedex', account_number: '*****1073', environment: 'sandbox' });
    expect(put.text).not.toContain(fedex.client_secret);
    expect((await t.call('PUT', '/v1/shipping/carriers/usps', { token: m.token, body: { ...usps, environment: 'production' } })).status).toBe(200);

    const listed = await t.call('GET', '/v1/shipping/carriers', { token: m.token });
    expect(listed.status).toBe(200);
    expect(listed.body.data.carriers.map((c: { carrier: string; environment: string }) => [c.carrier, c.environment])).toEqual([
      ['fedex', 'sandbox'],
      ['usps', 'production'],
    ]);
    for (const secret of [fedex.client_secret, fedex.client_id, usps.client_secret, fedex.account_number]) expect(listed.text).not.toContain(secret);

    expect(await carrierCredentials().get(m.accountId, 'usps')).toMatchObject({ clientSecret: usps.client_secret, crid: usps.crid, mailerId: usps.mailer_id });
    expect((await t.call('DELETE', '/v1/shipping/carriers/fedex', { token: m.token })).status).toBe(200);
    expect((await t.call('DELETE', '/v1/shipping/carriers/fedex', { token: m.token })).status).toBe(200);
    expect((await t.call('GET', '/v1/shipping/carriers', { token: m.token })).body.data.carriers.map((c: { carrier: string }) => c.carrier)).toEqual(['usps']);
  });

  it('a repeated PUT replaces the account: one entry per account and carrier, the last one wins', async () => {
    const m = await t.account('Tienda Repite');
    for (const account_number of ['111111111', '222222222', '222222222']) {
      expect((await t.call('PUT', '/v1/shipping/carriers/dhl', { token: m.token, body: { ...fedex, account_number } })).status).toBe(200);
    }
    expect((await carrierCredentials().get(m.accountId, 'dhl'))?.accountNumber).toBe('222222222');
    expect((await t.call('GET', '/v1/shipping/carriers', { token: m.token })).body.data.carriers).toHaveLength(1);
  });

  it('refuses a body that does not fit the carrier with 422 naming each field, and stores nothing', async () => {
    const m = await t.account('Tienda Hostil');
    const put = (carrier: string, body: unknown) => t.call('PUT', `/v1/shipping/carriers/${carrier}`, { token: m.token, body });
    const missing = await put('fedex', { client_id: 'x' });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['account_number', 'client_secret']);
    const ups = await put('ups', { ...fedex, account_number: '12' });
    expect(ups.status).toBe(422);
    expect(ups.body.errors.account_number[0]).toMatch(/UPS shipper number/);
    const uspsMissing = await put('usps', { ...fedex, account_number: '1000012345' });
    expect(Object.keys(uspsMissing.body.errors).sort()).toEqual(['crid', 'mailer_id']);
    const extra = await put('fedex', { ...fedex, crid: '1234' });
    expect(extra.body.errors.crid[0]).toMatch(/fedex does not take crid/);
    expect((await put('fedex', { ...fedex, client_secret: 42 })).body.errors.client_secret).toBeTruthy();
    expect((await put('fedex', { ...fedex, client_secret: 'has space' })).body.errors.client_secret).toBeTruthy();
    expect((await put('fedex', { ...fedex, environment: 'staging' })).body.errors.environment).toBeTruthy();
    for (const body of [null, [], 'text', { ['A-B']: 'x' }]) expect((await put('fedex', body)).status).toBe(422);
    expect([404, 422]).toContain((await put('despacho', fedex)).status);
    expect([404, 422]).toContain((await put('FEDEX', fedex)).status);
    expect((await t.call('GET', '/v1/shipping/carriers', { token: m.token })).body.data.carriers).toEqual([]);
  });

  it('needs shipping:write to connect and shipping:read to list', async () => {
    const reader = await t.account('Tienda Lectora', { scopes: ['shipping:read'] });
    expect((await t.call('PUT', '/v1/shipping/carriers/fedex', { token: reader.token, body: fedex })).status).toBe(403);
    expect((await t.call('GET', '/v1/shipping/carriers', { token: reader.token })).status).toBe(200);
  });

  it('keeps the twin file encrypted: no credential is readable in it', async () => {
    const m = await t.account('Tienda Cifrada');
    await t.call('PUT', '/v1/shipping/carriers/fedex', { token: m.token, body: fedex });
    const text = await readFile(join(t.dataDir, 'carrier-credentials.json'), 'utf8');
    expect(text).not.toContain(fedex.client_secret);
    expect(text).not.toContain(fedex.account_number);
  });
});
