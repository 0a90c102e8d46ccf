/**
 * The broker's day from the inbox in Chromium (issue 40): two couriers' flights, one of 10,000
 * products holding 500 of the same vague product. The inbox's counts are the API's; a broker opens
 * the flight's review from it without typing an id, decides the 500 at once, selects the documents
 * and validates and approves them in one step, all in Spanish, axe-core clean, no browser error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { useTwin } from '#support/twin';
import { batchOf, completedBatch, freshCuil, item, submitPath } from '#support/manifests';
import { pdf } from '#support/files';
import { axe, openBrowser } from '#support/browser';

const shots = '.bench/console';
const t = useTwin({ jobPollMs: 50 });
let browser: Browser;
let page: Page;
let problems: string[];
let broker: { token: string };
let north: { token: string };
let south: { token: string };
const flightSize = 10_000;
const groupSize = 500;
const batches: string[] = [];
const docs: number[] = [];

async function submit(token: string, mawb: string, items: unknown[]): Promise<string> {
  const key = randomUUID();
  const res = await t.call('POST', submitPath(), { token, body: { mawbNumber: mawb, items }, headers: { 'idempotency-key': key } });
  expect(res.status).toBe(202);
  return batchOf(t, token, key);
}


const inbox = async () => (await t.call('GET', '/v1/couriers/review/inbox', { token: broker.token })).body.data;

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  ({ browser, page, problems } = await openBrowser());
  broker = await t.account('Despachante Inbox', { kind: 'broker' });
  north = await t.account('Courier Norte');
  south = await t.account('Courier Sur');
  const every = flightSize / groupSize;
  const flight = Array.from({ length: flightSize }, (_, k) =>
    item(k + 1, {
      awbNumber: `NORTE${String(k + 1).padStart(6, '0')}`,
      itemDescription: k % every === 0 ? 'Regalo sorpresa' : `Remera de algodón talle ${k % 7}`,
      hsCode: undefined,
      fobValueUsd: 10 + (k % 40),
      consigneeIdNumber: freshCuil('20'),
    }),
  );
  batches.push(await submit(north.token, 'MAWB-NORTE-1', flight));
  batches.push(await submit(south.token, 'MAWB-SUR-1', [1, 2, 3].map((i) => item(i, { awbNumber: `SUR${i}`, itemDescription: 'Assorted sample lot misc', hsCode: undefined, fobValueUsd: 60 }))));
  for (const [token, awb] of [[north.token, '176-11111111'], [north.token, '176-11111112'], [south.token, '176-22222222']] as const) {
    const res = await t.call('POST', '/v1/transport/documents/upload', { token, body: { document_type: 'awb', filename: `${awb}.pdf`, file_base64: pdf(awb).toString('base64'), awb_number: awb } });
    expect(res.status).toBe(201);
    docs.push(res.body.data.id);
  }
  await completedBatch(t, north.token, batches[0]);
  await completedBatch(t, south.token, batches[1]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
});

describe('the inbox in the console', () => {
  it('opens on what needs action across both couriers, with the counts the API answers', async () => {
    await page.goto(`${t.twin.url}/console`);
    await page.getByLabel('Token').fill(broker.token);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Bandeja: lo que espera una acción' }).waitFor();
    const api = await inbox();
    expect(api.review.batches_open).toBe(2);
    await page.getByText(`${api.review.products_awaiting} productos por revisar en 2 lotes abiertos de 2 vuelos`).waitFor();
    await page.getByText('3 por validar · 0 por aprobar').waitFor();
    for (const name of ['Courier Norte', 'Courier Sur']) expect(await page.getByRole('cell', { name }).count()).toBeGreaterThan(0);
    const north = api.flights.flatMap((f: { batches: { batch_id: string; products_awaiting: number }[] }) => f.batches).find((b: { batch_id: string }) => b.batch_id === batches[0]);
    await page.getByRole('link', { name: new RegExp(`: ${north.products_awaiting}$`) }).waitFor();
    await page.screenshot({ path: `${shots}/inbox.png`, fullPage: true });
    expect(await axe(page), 'inbox').toEqual([]);
  });

  it('opens the flight from the inbox and decides its 500 identical products at once, from the keyboard', { timeout: 120_000 }, async () => {
    const before = (await inbox()).review.products_awaiting;
    await page.getByRole('link', { name: /^Revisar .*MAWB|^Revisar / }).first().click();
    await page.waitForURL(new RegExp(`/console/review/${batches[0]}$`));
    await page.getByRole('heading', { name: 'Grupos de productos iguales' }).waitFor();
    await page.getByText(`${groupSize} productos en ${groupSize} guías`).waitFor();
    expect(await axe(page), 'review groups').toEqual([]);
    const form = page.getByRole('form', { name: 'Decidir el grupo: Regalo sorpresa' });
    await form.getByLabel('NCM para el grupo').focus();
    await page.keyboard.type('9503.00.99');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Juguetes surtidos según factura');
    await page.keyboard.press('Enter');
    await page.getByText(new RegExp(`^${groupSize} productos pasaron a 9503.00.99`)).waitFor({ timeout: 60_000 });
    // The next group's form starts empty: a decided group's words never stay in another's fields
    // (read once the groups are read again: the status line speaks before the list is redrawn;
    // and in one step, so no field found before a redraw is read after it).
    await form.waitFor({ state: 'detached' });
    const reasons = await page.getByLabel('Motivo para el grupo').evaluateAll((fields) => fields.map((f) => (f as unknown as { value: string }).value));
    expect(reasons.filter((r) => r !== '')).toEqual([]);
    await page.screenshot({ path: `${shots}/review-groups.png` });
    const decisions = await t.call('GET', `/v1/couriers/manifests/${batches[0]}/review/decisions?per_page=100`, { token: broker.token });
    expect(decisions.body.data.every((d: { group_size?: number; decided_by: string }) => d.group_size === groupSize)).toBe(true);
    const after = (await inbox()).review.products_awaiting;
    expect(before - after).toBeGreaterThanOrEqual(groupSize);
  });

  it('selects the documents and validates and approves them in one step', async () => {
    await page.goto(`${t.twin.url}/console/documents`);
    await page.getByRole('checkbox', { name: 'Seleccionar todos los de esta página' }).check();
    await page.getByText('3 seleccionados').first().waitFor();
    expect(await axe(page), 'documents selected').toEqual([]);
    await page.getByRole('button', { name: 'Validar y aprobar seleccionados' }).click();
    await page.getByText('3 hechos, 0 ya estaban, 0 rechazados por su estado, 0 no encontrados.').waitFor();
    for (const id of docs) expect((await t.call('GET', `/v1/transport/documents/${id}`, { token: broker.token })).body.data.state).toBe('approved');
    expect((await inbox()).documents).toMatchObject({ awaiting_validation: 0, awaiting_approval: 0 });
  });

  it('met no browser error and no missing file on the way', () => {
    expect(problems).toEqual([]);
  });
});
