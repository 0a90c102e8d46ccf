/**
 * The console's search (issue 40, item 2) in Debian's Chromium against a twin, set up as
 * console.test.ts is: a broker types each kind into the top bar's field (a guía, an AWB, a CUIL, a
 * consignee's words, a product's words, a document's name), sees it under its group and follows
 * the link to the screen that shows it; axe-core finds nothing serious on the results; a partner's
 * top bar has no search field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { useTwin } from '#support/twin';
import { axe as axeOf, signIn as signInAs } from '#support/browser';
import { batchOf, freshCuil, item, submitPath } from '#support/manifests';
import { pdf } from '#support/files';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const t = useTwin({ jobPollMs: 50 });

let browser: Browser;
let page: Page;
let broker: { token: string };
let partner: { accountId: number; token: string };
const problems: string[] = [];
const cuil = freshCuil('27');
const run = randomUUID().slice(0, 6).toUpperCase();
const mawb = `176-${run}55`;
let batchId = '';
let docId = 0;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) problems.push(msg.text());
  });
  broker = await t.account('Aduana Staff', { kind: 'broker' });
  partner = await t.account('Correo Rápido SA');
  const doc = await t.call('POST', '/v1/transport/documents/upload', { token: partner.token, body: { document_type: 'customs', filename: `declaracion-jurada-${run}.pdf`, file_base64: pdf('DJ').toString('base64') } });
  expect(doc.status).toBe(201);
  docId = doc.body.data.id;
  const key = randomUUID();
  const res = await t.call('POST', submitPath(), {
    token: partner.token,
    headers: { 'idempotency-key': key },
    body: { mawbNumber: mawb, items: [item(1, { awbNumber: `QX${run}01`, consigneeName: 'Lucía Fernández Ojeda', consigneeIdNumber: cuil, itemDescription: 'Auriculares inalámbricos bluetooth' })] },
  });
  expect(res.status).toBe(202);
  batchId = await batchOf(t, partner.token, key);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

const signIn = (token: string) => signInAs(page, `${t.twin.url}/console`, token);

const axe = () => axeOf(page);

/** Types `q` into the top bar's field and waits for its group's heading. */
async function searchFor(q: string, group: string) {
  const field = page.getByRole('searchbox', { name: /Buscar guía/ });
  await field.fill(q);
  await field.press('Enter');
  await page.waitForURL(`**/console/search?q=${encodeURIComponent(q)}`);
  await page.getByRole('heading', { level: 2, name: new RegExp(`^${group}`) }).waitFor();
}

describe("the console's search", () => {
  it('finds each kind from the top bar, grouped, and follows each link to the screen that shows it', async () => {
    await signIn(broker.token);
    const cases: [string, string, string, RegExp][] = [
      [mawb.slice(0, 8), 'Lotes', mawb, new RegExp(`/console/manifests/${batchId}$`)],
      [`QX${run}01`, 'AWB', `QX${run}01`, new RegExp(`/console/manifests/${batchId}\\?awb=QX${run}01$`)],
      [cuil, 'CUIT, CUIL o DNI', cuil, new RegExp(`/console/quota/${cuil}$`)],
      ['fernandez luc', 'Destinatarios', 'Lucía Fernández Ojeda', new RegExp(`/console/quota/${cuil}$`)],
      ['auriculares inal', 'Productos', 'Auriculares inalámbricos bluetooth', new RegExp(`/console/review/${batchId}\\?awb=`)],
      ['declaracion jurada', 'Documentos', `declaracion-jurada-${run}.pdf`, new RegExp(`/console/documents/${docId}$`)],
    ];
    for (const [q, group, text, address] of cases) {
      await searchFor(q, group);
      const section = page.getByRole('region', { name: new RegExp(`^${group}`) });
      const link = section.getByRole('link', { name: text === mawb ? new RegExp(`${run}`) : text });
      await link.first().waitFor();
      if (q === cuil) expect(await axe(), 'the results').toEqual([]);
      await link.first().click();
      await page.waitForURL(address);
      await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id')).toBe('screen-title');
    }
    await page.screenshot({ path: '.bench/console/search.png', fullPage: true }).catch(() => undefined);
    expect(problems).toEqual([]);
  }, 120_000);

  it('says when nothing is found, and keeps the query in the field', async () => {
    const field = page.getByRole('searchbox', { name: /Buscar guía/ });
    await field.fill('zzqqxx nada');
    await field.press('Enter');
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Nada encontrado/);
    expect(await page.getByRole('searchbox').inputValue()).toBe('zzqqxx nada');
  });

  it("shows no search field in a partner's top bar", async () => {
    await signIn(partner.token);
    expect(await page.getByRole('searchbox').count()).toBe(0);
  });
});
