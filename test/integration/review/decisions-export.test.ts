/**
 * Decisions teach (issue 39, 4): the broker's decisions on a partner's products exported as labeled
 * items, only with the account's consent recorded by the operator.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { item, manifest, submitForBatch } from '#support/manifests';

const t = useTwin();
const company = { consigneeIdType: 'CUIT', consigneeIdNumber: '30703088534' };

let partner: { accountId: number; token: string };
let broker: { token: string };
let batchId: string;

beforeAll(async () => {
  partner = await t.account('Export Couriers');
  broker = await t.account('Export Broker', { kind: 'broker' });
  batchId = await submitForBatch(
    t,
    partner.token,
    manifest(0, {
      items: [
        item(1, { itemDescription: 'Assorted sample lot misc', hsCode: '9999.99', fobValueUsd: 200, productLink: 'https://shop.example.com/p/9', ...company }),
        item(2, { awbNumber: 'AWB0000002', itemDescription: 'Mochila urbana de poliester', hsCode: undefined, fobValueUsd: 30, ...company }),
        item(3, { awbNumber: 'AWB0000003', itemName: undefined, itemDescription: undefined, productLink: 'https://shop.example.com/p/only-link', hsCode: undefined, fobValueUsd: 30, ...company }),
      ],
    }),
  );
  await t.settle();
  const decide = (awb: string, ncm_code: string, reason: string) =>
    t.call('PUT', `/v1/couriers/manifests/${batchId}/products/${awb}/classification`, { token: broker.token, body: { ncm_code, reason } });
  expect((await decide('AWB0000001', '4202.92.00', 'Backpacks, per the invoice')).status).toBe(200);
  expect((await decide('AWB0000002', '4202.92.00', 'Confirmed')).status).toBe(200);
  expect((await decide('AWB0000003', '4202.92.00', 'Per the product page')).status).toBe(200);
});

const decisions = (accountId: number, query = '') => t.call('GET', `/v1/admin/accounts/${accountId}/tariff-decisions${query}`);

describe('exporting the broker decisions as labeled items', () => {
  it("answers 409 while the account has not consented, and shows the account's consent as not given", async () => {
    const res = await decisions(partner.accountId);
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/has not consented/);
    const me = await t.call('GET', '/v1/me', { token: partner.token });
    expect(me.body.data.account).toMatchObject({ shares_tariff_decisions: false, tariff_consent_at: null });
  });

  it('answers each decision once, as a labeled item with its decision as the document, once the consent is recorded', async () => {
    const put = await t.call('PUT', `/v1/admin/accounts/${partner.accountId}/tariff-consent`, { body: { share_decisions: true, reference: 'Agreement 2026-114, clause 7' } });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ id: partner.accountId, shares_tariff_decisions: true, tariff_consent_reference: 'Agreement 2026-114, clause 7' });
    expect(put.body.data.tariff_consent_at).toEqual(expect.any(String));
    const res = await decisions(partner.accountId, '?per_page=500');
    expect(res.status).toBe(200);
    const items = [...res.body.data].sort((a: { doc_id: string }, b: { doc_id: string }) => a.doc_id.localeCompare(b.doc_id));
    expect(items).toEqual([
      {
        source: 'broker-decision',
        doc_id: `${batchId}/AWB0000001/r1`,
        date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        hs6: '420292',
        ncm_code: '4202.92.00',
        description: 'Assorted sample lot misc',
        declared_code: '9999.99',
        product_link: 'https://shop.example.com/p/9',
      },
      expect.objectContaining({ doc_id: `${batchId}/AWB0000002/r2`, description: 'Mochila urbana de poliester', declared_code: null, product_link: null }),
    ]);
    expect(res.body.meta).toMatchObject({ account_id: partner.accountId, next_cursor: null });
  });

  it('pages with a cursor without answering a decision twice', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 10; n++) {
      const res = await decisions(partner.accountId, `?per_page=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((d: { doc_id: string }) => d.doc_id));
      cursor = res.body.meta.next_cursor;
      if (!cursor) break;
    }
    expect(seen.sort()).toEqual([`${batchId}/AWB0000001/r1`, `${batchId}/AWB0000002/r2`]);
  });

  it('stops answering once the consent is withdrawn', async () => {
    const withdrawn = await t.call('PUT', `/v1/admin/accounts/${partner.accountId}/tariff-consent`, { body: { share_decisions: false } });
    expect(withdrawn.body.data).toMatchObject({ shares_tariff_decisions: false, tariff_consent_reference: null });
    expect((await decisions(partner.accountId)).status).toBe(409);
  });

  it('answers 404 for an unknown account, 422 naming the field for a bad body or cursor, and 403 to anyone but the operator', async () => {
    expect((await decisions(999999)).status).toBe(404);
    expect((await t.call('PUT', '/v1/admin/accounts/999999/tariff-consent', { body: { share_decisions: true } })).status).toBe(404);
    const bad = await t.call('PUT', `/v1/admin/accounts/${partner.accountId}/tariff-consent`, { body: { share_decisions: 'yes' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('share_decisions');
    const extra = await t.call('PUT', `/v1/admin/accounts/${partner.accountId}/tariff-consent`, { body: { share_decisions: true, everyone: true } });
    expect(extra.status).toBe(422);
    await t.call('PUT', `/v1/admin/accounts/${partner.accountId}/tariff-consent`, { body: { share_decisions: true } });
    const cursor = await decisions(partner.accountId, '?cursor=not-a-cursor');
    expect(cursor.status).toBe(422);
    expect(cursor.body.errors).toHaveProperty('cursor');
    expect((await t.call('GET', `/v1/admin/accounts/${partner.accountId}/tariff-decisions`, { token: partner.token })).status).toBe(403);
    expect((await t.call('PUT', `/v1/admin/accounts/${partner.accountId}/tariff-consent`, { token: broker.token, body: { share_decisions: true } })).status).toBe(403);
  });
});
