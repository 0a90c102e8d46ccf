/**
 * The NCM picker's search (issue 40, item 4; docs/brokers/review.md) over real HTTP on the twin:
 * the tariff table in force searched by words (Spanish or English, accents folded) and by code
 * prefix, each row with its duty and VAT rates; bad input is a 422 naming the field.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, useTwin } from '#support/twin';

const t = useTwin();

let broker: { token: string };
let partner: { token: string };

type Row = { ncm_code: string; description: string; description_en: string | null; duty_rate: number; duty_rate_status: string; vat_rate: number };
const search = async (query: string, token = broker.token) => {
  const res = await t.call('GET', `/v1/customs/tariff/ncm${query}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { data: Row[]; meta: { q: string; kind: 'code' | 'words'; total: number; limit: number; table: string; table_version: string | null } };
};

beforeAll(async () => {
  broker = await t.account('Broker NCM', { kind: 'broker' });
  partner = await t.account('Courier NCM SA');
});

describe('GET /v1/customs/tariff/ncm', () => {
  it('finds a row by a Spanish word with its accents left out, with its duty and VAT as rates', async () => {
    const body = await search(`?q=${encodeURIComponent('telefonos inteligentes')}`);
    expect(body.meta).toMatchObject({ kind: 'words', limit: 20, table: 'builtin' });
    expect(body.data[0]).toEqual({
      ncm_code: '8517.13.00',
      description: expect.stringContaining('Teléfonos'),
      description_en: expect.any(String),
      duty_rate: expect.any(Number),
      duty_rate_status: 'unverified',
      vat_rate: 21,
    });
  });

  it('finds a row by an English word and by a code prefix written with dots', async () => {
    expect((await search('?q=helmet')).data.map((r) => r.ncm_code)).toContain('6506.10.00');
    const code = await search(`?q=${encodeURIComponent('8517.13')}`);
    expect(code.meta.kind).toBe('code');
    expect(code.data.map((r) => r.ncm_code)).toEqual(['8517.13.00']);
  });

  it('bounds the rows to the limit and says how many matched, and answers none for nonsense', async () => {
    const body = await search('?q=85&limit=5');
    expect(body.data).toHaveLength(5);
    expect(body.meta.total).toBeGreaterThan(5);
    expect(body.data.every((r) => r.ncm_code.startsWith('85'))).toBe(true);
    const none = await search('?q=xqzzvwk');
    expect(none.data).toEqual([]);
    expect(none.meta.total).toBe(0);
  });

  it('answers 422 naming q when it is missing, empty, too long or more than 8 digits, and limit outside 1 to 50', async () => {
    for (const q of ['', '?q=', '?q=%20%20', `?q=${'a'.repeat(101)}`, '?q=851713001', '?q=...']) {
      const res = await t.call('GET', `/v1/customs/tariff/ncm${q}`, { token: broker.token });
      expect(res.status, q).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['q']);
    }
    for (const limit of ['0', '51', 'ten', '-1']) {
      const res = await t.call('GET', `/v1/customs/tariff/ncm?q=casco&limit=${limit}`, { token: broker.token });
      expect(res.status, limit).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['limit']);
    }
  });

  it('lets a partner search (the nomenclature is public), never a caller without a token', async () => {
    expect((await search('?q=casco', partner.token)).data.map((r) => r.ncm_code)).toContain('6506.10.00');
    expect((await t.call('GET', '/v1/customs/tariff/ncm?q=casco', { token: null })).status).toBe(401);
  });

  it('searches the imported table once the operator imports one', async () => {
    const csv = 'ncm,description,duty_rate,description_en,keywords\n8517.13.00,Teléfonos inteligentes,16,Smartphones,celular\n9503.00.99,Los demás juguetes,35,Other toys,juguete\n';
    const put = await t.call('PUT', '/v1/admin/tariff', { raw: csv, headers: { 'content-type': 'text/csv' }, token: adminToken });
    expect(put.status).toBe(200);
    const body = await search('?q=juguetes');
    expect(body.meta.table).toBe('imported');
    expect(body.data).toEqual([expect.objectContaining({ ncm_code: '9503.00.99', duty_rate: 35, duty_rate_status: 'imported', description_en: 'Other toys' })]);
    expect((await search('?q=helmet')).data).toEqual([]);
  });
});
