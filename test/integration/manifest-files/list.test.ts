import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { json, upload, xlsx } from './storage';

const t = useTwin();

const list = (token: string, query = '') => t.call('GET', `/v1/manifests/storage/list${query}`, { token });

describe('stored manifest files: list', () => {
  it('lists the files of the caller newest first with the fields of 2.8 and a working file_url', async () => {
    const { token } = await t.account('Lister SA');
    const first = await upload(t, token, { courier_code: 'DHL' }, { name: 'uno.json', data: json() });
    const second = await upload(t, token, { courier_code: 'UPS' }, { name: 'dos.xlsx', data: xlsx() });
    const res = await list(token);
    expect(res.status).toBe(200);
    expect(res.body.data.map((f: { id: number }) => f.id)).toEqual([second.body.data.id, first.body.data.id]);
    expect(res.body.data[0]).toMatchObject({ file_name: 'dos.xlsx', courier_code: 'UPS', file_size: { bytes: xlsx().length } });
    expect(Object.keys(res.body.data[0])).toEqual(expect.arrayContaining(['file_name', 'file_url', 'file_size', 'courier_code', 'uploaded_at']));
    const download = await fetch(res.body.data[1].file_url);
    expect(Buffer.from(await download.arrayBuffer()).equals(json())).toBe(true);
    expect(res.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 15, total: 2 });
  });

  it('filters by courier_code, case-insensitively', async () => {
    const { token } = await t.account('Filter SA');
    await upload(t, token, { courier_code: 'DHL' }, { name: 'a.json', data: json() });
    await upload(t, token, { courier_code: 'FEDEX' }, { name: 'b.json', data: json() });
    await upload(t, token, { courier_code: 'dhl' }, { name: 'c.json', data: json() });
    const res = await list(token, '?courier_code=Dhl');
    expect(res.body.data.map((f: { file_name: string }) => f.file_name)).toEqual(['c.json', 'a.json']);
    expect(res.body.meta.total).toBe(2);
    expect((await list(token, '?courier_code=UPS')).body).toMatchObject({ data: [], meta: { total: 0, last_page: 1 } });
  });

  it('answers a courier_code filter that is not a carrier code with 422', async () => {
    const { token } = await t.account('Bad Filter SA');
    const res = await list(token, '?courier_code=D%20H');
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('courier_code');
  });

  it('pages 15 files at a time by default and fills meta', async () => {
    const { token } = await t.account('Pager SA');
    for (let i = 1; i <= 17; i++) await upload(t, token, { courier_code: 'DHL' }, { name: `m${i}.json`, data: json({ i }) });
    const first = await list(token);
    expect(first.body.data).toHaveLength(15);
    expect(first.body.meta).toEqual({ current_page: 1, last_page: 2, per_page: 15, total: 17 });
    const second = await list(token, '?page=2');
    expect(second.body.data.map((f: { file_name: string }) => f.file_name)).toEqual(['m2.json', 'm1.json']);
    expect(second.body.meta).toEqual({ current_page: 2, last_page: 2, per_page: 15, total: 17 });
    const small = await list(token, '?per_page=5&page=4');
    expect(small.body.data.map((f: { file_name: string }) => f.file_name)).toEqual(['m2.json', 'm1.json']);
    expect(small.body.meta).toEqual({ current_page: 4, last_page: 4, per_page: 5, total: 17 });
  });

  it('answers per_page over 100, under 1 or not a number with 422', async () => {
    const { token } = await t.account('Per Page SA');
    for (const value of ['101', '0', 'ten']) {
      const res = await list(token, `?per_page=${value}`);
      expect(res.status, value).toBe(422);
      expect(res.body.errors, value).toHaveProperty('per_page');
    }
    expect((await list(token, '?per_page=100')).status).toBe(200);
  });

  it("never lists another account's files", async () => {
    const a = await t.account('Tenant A');
    const b = await t.account('Tenant B');
    await upload(t, a.token, { courier_code: 'DHL' }, { name: 'secret.json', data: json() });
    expect((await list(b.token)).body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await list(b.token, '?courier_code=DHL')).body.data).toEqual([]);
    expect((await list(a.token)).body.meta.total).toBe(1);
  });
});
