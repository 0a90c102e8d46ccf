import { describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { useTwin } from '#support/twin';
import { recordEvents } from '#support/events';
import { pdf, png } from '#support/files';
import { item, submitForBatch } from '#support/manifests';
import { sha256Checksum } from '#core/documents/files';
import { parseCsv } from '#core/deliveries/bulk';

const t = useTwin();
const events = recordEvents();

let seq = 0;
/** A partner with one manifest of `n` AWBs on a flight of its own. */
async function partnerWithFlight(n = 2) {
  const partner = await t.account(`Courier ${++seq}`);
  const base = 1000 * seq + Math.floor(Math.random() * 900) * 100_000;
  const awbs = Array.from({ length: n }, (_, i) => `AWB${base + i}`);
  const mawb = `045-${String(base).padStart(8, '0')}`;
  const manifestNumber = `MAN-${base}`;
  await submitForBatch(t, partner.token, { mawbNumber: mawb, manifestNumber, items: awbs.map((awb, i) => item(base + i, { awbNumber: awb, itemIdempotencyKey: `l-${awb}` })) });
  return { ...partner, awbs, mawb, manifestNumber };
}

const delivery = (awb: string, over: Record<string, unknown> = {}) => ({
  awb_number: awb,
  delivered_at: '2026-12-06T15:30:00-03:00',
  recipient_name: 'Ana Pérez',
  recipient_dni: '30123456',
  recipient_relation: 'titular',
  latitude: -34.6037,
  longitude: -58.3816,
  file_base64: png().toString('base64'),
  file_name: 'firma.png',
  ...over,
});

async function record(token: string, body: Record<string, unknown>) {
  return t.call('POST', '/v1/deliveries', { token, body });
}

/** POSTs a file to the presigned form the declaration answered, as a partner's code does. */
async function post(form: { upload_url: string; fields: Record<string, string>; content_type: string }, bytes: Buffer) {
  const body = new FormData();
  for (const [k, v] of Object.entries(form.fields)) body.append(k, v);
  body.append('file', new Blob([bytes], { type: form.content_type }), 'file');
  expect((await fetch(form.upload_url, { method: 'POST', body })).status).toBe(204);
}

const declared = (name: string, bytes: Buffer) => ({ filename: name, file_size: bytes.length, checksum: sha256Checksum(bytes) });

async function importDay(token: string, csv: string, files: Record<string, Uint8Array>, day = '2026-12-06') {
  const csvBytes = Buffer.from(csv);
  const zipBytes = Buffer.from(zipSync(files));
  const forms = await t.call('POST', '/v1/deliveries/bulk/upload-url', { token, body: { csv: declared('day.csv', csvBytes), zip: declared('day.zip', zipBytes) } });
  expect(forms.status).toBe(201);
  await post(forms.body.data.csv, csvBytes);
  await post(forms.body.data.zip, zipBytes);
  return t.call('POST', '/v1/deliveries/bulk', { token, body: { day, csv_upload_id: forms.body.data.csv.upload_id, zip_upload_id: forms.body.data.zip.upload_id } });
}

const header = 'awb_number,delivered_at,recipient_name,recipient_dni,recipient_relation,latitude,longitude,address,file\n';

describe('recording one proof of delivery', () => {
  it('keeps the proof with its manifest and flight and answers a download URL of the file', async () => {
    const p = await partnerWithFlight();
    const res = await record(p.token, delivery(p.awbs[0]));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      awb_number: p.awbs[0],
      manifest_id: p.manifestNumber,
      mawb_number: p.mawb,
      delivered_at: '2026-12-06T18:30:00.000Z',
      recipient: { name: 'Ana Pérez', dni: '30123456', relation: 'titular' },
      location: { latitude: -34.6037, longitude: -58.3816, address: null },
      file: { mime_type: 'image/png', file_size: png().length, checksum: sha256Checksum(png()) },
      source: 'api',
    });
    expect(Date.parse(res.body.data.retain_until) - Date.parse(res.body.data.recorded_at)).toBeGreaterThanOrEqual(5 * 365 * 24 * 3600_000);
    const file = await fetch(res.body.data.file.download_url);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(png())).toBe(true);
  });

  it('answers a retried request with the same proof and publishes delivery.recorded once', async () => {
    const p = await partnerWithFlight();
    const first = await record(p.token, delivery(p.awbs[0]));
    const again = await record(p.token, delivery(p.awbs[0]));
    expect(again.status).toBe(201);
    const { download_url: _a, ...firstFile } = first.body.data.file;
    const { download_url: _b, ...againFile } = again.body.data.file;
    expect({ ...again.body.data, file: againFile }).toEqual({ ...first.body.data, file: firstFile });
    expect(events.filter((e) => e.type === 'delivery.recorded').map((e) => (e.data as { awb_number: string }).awb_number)).toEqual([p.awbs[0]]);
  });

  it('answers 409 naming the AWB to a different proof for an AWB already proven, and keeps the first', async () => {
    const p = await partnerWithFlight();
    await record(p.token, delivery(p.awbs[0]));
    const other = await record(p.token, delivery(p.awbs[0], { recipient_name: 'Otra Persona', file_base64: pdf('otra').toString('base64'), file_name: 'otra.pdf' }));
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ success: false, error: 'conflict', awb_number: p.awbs[0] });
    const kept = await t.call('GET', `/v1/deliveries?awb_number=${p.awbs[0]}`, { token: p.token });
    expect(kept.body.data).toHaveLength(1);
    expect(kept.body.data[0]).toMatchObject({ recipient: { name: 'Ana Pérez' }, file: { mime_type: 'image/png' } });
  });

  it('refuses a file that is not an image or a PDF by its bytes, naming file_base64, and keeps nothing', async () => {
    const p = await partnerWithFlight();
    const res = await record(p.token, delivery(p.awbs[0], { file_base64: Buffer.from('MZ\x90\x00 not a photo').toString('base64'), file_name: 'firma.png' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('file_base64');
    expect((await t.call('GET', `/v1/deliveries?awb_number=${p.awbs[0]}`, { token: p.token })).body.data).toEqual([]);
  });

  it('names each invalid field: the DNI and the instant', async () => {
    const p = await partnerWithFlight();
    const res = await record(p.token, delivery(p.awbs[0], { recipient_dni: '30.123.456', delivered_at: 'yesterday' }));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['delivered_at', 'recipient_dni']);
  });

  it('answers 422 naming delivered_at when the delivery is in the future', async () => {
    const p = await partnerWithFlight();
    const res = await record(p.token, delivery(p.awbs[0], { delivered_at: new Date(Date.now() + 3600_000).toISOString() }));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['delivered_at']);
  });

  it('answers 422 naming longitude when a latitude comes without it', async () => {
    const p = await partnerWithFlight();
    const res = await record(p.token, delivery(p.awbs[0], { longitude: undefined }));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['longitude']);
  });

  it("refuses an AWB that is not of the partner's manifests, even one of another account", async () => {
    const owner = await partnerWithFlight();
    const stranger = await partnerWithFlight();
    const res = await record(stranger.token, delivery(owner.awbs[0]));
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('awb_number');
  });
});

describe('a proof cannot be changed or deleted on the twin', () => {
  it('refuses to overwrite or delete the stored file, which is read-only on disk', async () => {
    const p = await partnerWithFlight();
    await record(p.token, delivery(p.awbs[0]));
    const [stored] = (await t.call('GET', `/v1/deliveries?awb_number=${p.awbs[0]}`, { token: p.token })).body.data;
    const key = decodeURIComponent(new URL(stored.file.download_url).pathname.slice('/_proofs/'.length));
    await expect(t.twin.proofs.put(key, pdf('forged'), 'application/pdf')).rejects.toThrow(/Object Lock/);
    await expect(t.twin.proofs.delete(key)).rejects.toThrow(/Object Lock/);
    expect(await t.twin.proofs.putOnce(key, pdf('forged'), 'application/pdf')).toBe('exists');
    expect((await t.twin.proofs.get(key))!.equals(png())).toBe(true);
    expect(statSync(join(t.twin.proofs.root, key)).mode & 0o777).toBe(0o400);
  });
});

describe("a day's proofs in bulk", () => {
  it('records every row of a CSV with its ZIP of files, and answers a retry the same', async () => {
    const p = await partnerWithFlight(3);
    const csv =
      header +
      `${p.awbs[0]},2026-12-06T09:10:00-03:00,Ana Pérez,30123456,titular,,,,firmas/uno.png\n` +
      `${p.awbs[1]},2026-12-06T11:00:00-03:00,"Gómez, Luis",20111222,portero,-34.6,-58.4,"Av. Corrientes 1234",firmas/dos.pdf\n` +
      `${p.awbs[2]},2026-12-06T20:59:00-03:00,Eva Ruiz,1234567,vecina,,,,tres.png\n`;
    const zip = { 'firmas/uno.png': png(), 'firmas/dos.pdf': pdf('dos'), 'tres.png': png() };
    const res = await importDay(p.token, csv, zip);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ day: '2026-12-06', proofs: 3, awb_numbers: p.awbs });
    const found = await t.call('GET', `/v1/deliveries?mawb_number=${p.mawb}`, { token: p.token });
    expect(found.body.data.map((d: { awb_number: string; source: string }) => [d.awb_number, d.source]).sort()).toEqual(p.awbs.map((a) => [a, 'bulk']).sort());
    expect(found.body.data.find((d: { awb_number: string }) => d.awb_number === p.awbs[1])).toMatchObject({
      recipient: { name: 'Gómez, Luis', relation: 'portero' },
      location: { latitude: -34.6, longitude: -58.4, address: 'Av. Corrientes 1234' },
      file: { mime_type: 'application/pdf' },
    });
    const again = await importDay(p.token, csv, zip);
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual(res.body.data);
    expect(events.filter((e) => e.type === 'delivery.recorded')).toHaveLength(3);
  });

  it('refuses the whole CSV when one row is bad, naming the row and the field, and records nothing', async () => {
    const p = await partnerWithFlight(2);
    const csv = header + `${p.awbs[0]},2026-12-06T09:10:00-03:00,Ana Pérez,30123456,titular,,,,uno.png\n` + `${p.awbs[1]},2026-12-06T10:00:00-03:00,Luis,12AB,portero,,,,dos.png\n`;
    const res = await importDay(p.token, csv, { 'uno.png': png(), 'dos.png': png() });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ 'rows[2].recipient_dni': [expect.any(String)] });
    expect((await t.call('GET', `/v1/deliveries?mawb_number=${p.mawb}`, { token: p.token })).body.data).toEqual([]);
  });

  it('refuses a row delivered on another day than the import', async () => {
    const p = await partnerWithFlight(1);
    const res = await importDay(p.token, header + `${p.awbs[0]},2026-12-07T01:00:00-03:00,Ana,30123456,titular,,,,uno.png\n`, { 'uno.png': png() });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty(['rows[1].delivered_at']);
  });

  it('refuses a row whose file is not an image or a PDF, by its bytes', async () => {
    const p = await partnerWithFlight(1);
    const res = await importDay(p.token, header + `${p.awbs[0]},2026-12-06T10:00:00-03:00,Ana,30123456,titular,,,,uno.png\n`, { 'uno.png': Buffer.from('#!/bin/sh\necho hi\n') });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty(['rows[1].file']);
  });

  it('refuses a ZIP with an entry that leaves its folder (zip slip)', async () => {
    const p = await partnerWithFlight(1);
    const res = await importDay(p.token, header + `${p.awbs[0]},2026-12-06T10:00:00-03:00,Ana,30123456,titular,,,,../uno.png\n`, { '../uno.png': png() });
    expect(res.status).toBe(422);
    expect(res.body.errors.zip.join(' ')).toMatch(/leaves its folder/);
  });

  it('refuses a ZIP bomb before expanding it', async () => {
    const p = await partnerWithFlight(1);
    const bomb = new Uint8Array(64 * 1024 * 1024);
    const res = await importDay(p.token, header + `${p.awbs[0]},2026-12-06T10:00:00-03:00,Ana,30123456,titular,,,,uno.png\n`, { 'uno.png': bomb });
    expect(res.status).toBe(422);
    expect(res.body.errors.zip.join(' ')).toMatch(/expands to over|compressed more than/);
  });
});

describe('finding proofs and a flight archive', () => {
  it('finds by AWB, manifest and flight; a broker sees every account, another partner none', async () => {
    const p = await partnerWithFlight(2);
    await record(p.token, delivery(p.awbs[0]));
    await record(p.token, delivery(p.awbs[1], { file_base64: pdf('b').toString('base64'), file_name: 'b.pdf' }));
    const awbs = (r: { body: { data: { awb_number: string }[] } }) => r.body.data.map((d) => d.awb_number).sort();
    expect(awbs(await t.call('GET', `/v1/deliveries?awb_number=${p.awbs[0]}`, { token: p.token }))).toEqual([p.awbs[0]]);
    expect(awbs(await t.call('GET', `/v1/deliveries?manifest_id=${p.manifestNumber}`, { token: p.token }))).toEqual(p.awbs);
    expect(awbs(await t.call('GET', `/v1/deliveries?mawb_number=${p.mawb}`, { token: p.token }))).toEqual(p.awbs);
    const broker = await t.account('Broker Proofs', { kind: 'broker' });
    expect(awbs(await t.call('GET', `/v1/deliveries?mawb_number=${p.mawb}`, { token: broker.token }))).toEqual(p.awbs);
    const stranger = await t.account('Stranger Proofs');
    expect((await t.call('GET', `/v1/deliveries?awb_number=${p.awbs[0]}`, { token: stranger.token })).body.data).toEqual([]);
    expect((await t.call('GET', `/v1/deliveries?mawb_number=${p.mawb}`, { token: stranger.token })).body.data).toEqual([]);
  });

  it('answers 422 when no filter or two are given', async () => {
    const p = await partnerWithFlight(1);
    expect((await t.call('GET', '/v1/deliveries', { token: p.token })).status).toBe(422);
    expect((await t.call('GET', `/v1/deliveries?awb_number=${p.awbs[0]}&mawb_number=${p.mawb}`, { token: p.token })).status).toBe(422);
  });

  it("downloads a flight's proofs as one ZIP with an index, and refuses another account's flight with 404", async () => {
    const p = await partnerWithFlight(2);
    await record(p.token, delivery(p.awbs[0]));
    await record(p.token, delivery(p.awbs[1], { file_base64: pdf('b').toString('base64'), file_name: 'b.pdf' }));
    const res = await t.call('GET', `/v1/deliveries/flights/${encodeURIComponent(p.mawb)}/archive`, { token: p.token });
    expect(res.status).toBe(200);
    const zip = await fetch(res.body.data.download_url);
    expect(zip.status).toBe(200);
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const index = parseCsv(new TextDecoder().decode(files['index.csv']))!;
    expect(index[0]).toContain('awb_number');
    expect(index.slice(1).map((r) => r[1]).sort()).toEqual(p.awbs);
    const fileColumn = index[0].indexOf('file');
    for (const row of index.slice(1)) expect(files[row[fileColumn]]).toBeDefined();
    expect(Buffer.from(files[index.slice(1).find((r) => r[1] === p.awbs[0])![fileColumn]]).equals(png())).toBe(true);
    const stranger = await t.account('Stranger Archive');
    expect((await t.call('GET', `/v1/deliveries/flights/${encodeURIComponent(p.mawb)}/archive`, { token: stranger.token })).status).toBe(404);
  });
});
