/**
 * The proof of delivery on an AWB's page of the console (issue 44), in Debian's Chromium against a
 * twin: a partner records a delivery, the broker opens the AWB (the search's link,
 * /console/manifests/<batch>?awb=<awb>) and reads who received it, when and where, with a link to
 * the signature; an AWB without a proof says so; axe-core finds nothing serious.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { useTwin } from '#support/twin';
import { axe, openBrowser, signIn } from '#support/browser';
import { item, submitForBatch } from '#support/manifests';
import { png } from '#support/files';

const t = useTwin({ jobPollMs: 50 });
let browser: Browser;
let page: Page;
let problems: string[];
let broker: { token: string };
let batchId = '';

beforeAll(async () => {
  ({ browser, page, problems } = await openBrowser());
  broker = await t.account('Aduana Constancias', { kind: 'broker' });
  const partner = await t.account('Correo Entregas SA');
  batchId = await submitForBatch(t, partner.token, { mawbNumber: '045-99887766', items: [item(1, { awbNumber: 'PD0000001' }), item(2, { awbNumber: 'PD0000002' })] });
  const res = await t.call('POST', '/v1/deliveries', {
    token: partner.token,
    body: { awb_number: 'PD0000001', delivered_at: '2026-12-06T15:30:00-03:00', recipient_name: 'María Gómez', recipient_dni: '28765432', recipient_relation: 'hermana', address: 'Av. Rivadavia 4000, CABA', file_base64: png().toString('base64'), file_name: 'firma.png' },
  });
  expect(res.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("the AWB's proof of delivery in the console", () => {
  it('shows who received the AWB, when and where, with a link to the signature, in Spanish', async () => {
    await signIn(page, `${t.twin.url}/console`, broker.token);
    await page.goto(`${t.twin.url}/console/manifests/${encodeURIComponent(batchId)}?awb=PD0000001`);
    const proof = page.getByRole('region', { name: 'Constancia de entrega de la guía PD0000001' });
    await proof.getByText('María Gómez').waitFor();
    const facts = await proof.locator('dd').allInnerTexts();
    expect(facts).toEqual(expect.arrayContaining(['María Gómez', '28765432', 'hermana', 'Av. Rivadavia 4000, CABA']));
    const link = proof.getByRole('link', { name: 'Abrir firma.png' });
    const href = await link.getAttribute('href');
    expect((await fetch(href!)).status).toBe(200);
    await page.screenshot({ path: '.bench/console/delivery-proof.png', fullPage: true }).catch(() => undefined);
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('says when an AWB has no proof of delivery yet', async () => {
    await page.goto(`${t.twin.url}/console/manifests/${encodeURIComponent(batchId)}?awb=PD0000002`);
    await page.getByText('Esta guía todavía no tiene constancia de entrega.').waitFor();
  });
});
