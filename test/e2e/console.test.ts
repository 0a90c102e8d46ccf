/**
 * The console end to end (issue 33): Debian's Chromium (playwright-core) against a twin that runs
 * its jobs by itself. A broker does a day's work through the page (approve a document, follow a
 * manifest to completed, correct a product's NCM and see its duty change, close the batch) and
 * every change is checked against the API; a partner sees what its role allows. Each screen is
 * screenshotted under .bench/console/ (gitignored) and checked by axe-core; a 10,000-item batch's
 * review page shows its first page from one bounded read (its 1 s is bench:review's figure).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorMessageEs } from '#http/console/api-errors';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { useTwin } from '#support/twin';
import { axe as axeOf, signIn as signInAs } from '#support/browser';
import { batchOf, completedBatch, freshCuil, item, submitPath } from '#support/manifests';
import { pdf, png } from '#support/files';
import { XLSX } from '#support/workbooks';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const shots = '.bench/console';
const t = useTwin({ jobPollMs: 50 });

let browser: Browser;
let context: BrowserContext;
let page: Page;
let broker: { token: string };
let partner: { accountId: number; token: string };
const problems: string[] = [];
const person = freshCuil('20');
let batchId = '';
let pdfId = 0;
let pngId = 0;

/** Submits a manifest through the API and answers its batch id once intake wrote it (the twin runs the pipeline by itself). */
async function submit(token: string, items: unknown[]): Promise<string> {
  const key = randomUUID();
  const res = await t.call('POST', submitPath(), { token, body: { mawbNumber: `MAWB-${key.slice(0, 8)}`, items }, headers: { 'idempotency-key': key } });
  expect(res.status).toBe(202);
  return batchOf(t, token, key);
}


beforeAll(async () => {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium is not installed at ${chromiumPath}: the console test needs it (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  mkdirSync(shots, { recursive: true });
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Trusted Type|Refused to/i.test(msg.text())) problems.push(msg.text());
  });
  // Nothing the console loads by itself is missing (a favicon 404 on every load was, before issue 40).
  page.on('response', (res) => {
    if (res.status() === 404 && !res.url().includes('/api/')) problems.push(`404 ${res.url()}`);
  });
  broker = await t.account('Aduana Staff', { kind: 'broker' });
  partner = await t.account('Console Couriers');
  const upload = async (body: Record<string, unknown>) => {
    const res = await t.call('POST', '/v1/transport/documents/upload', { token: partner.token, body });
    expect(res.status).toBe(201);
    return res.body.data.id as number;
  };
  pdfId = await upload({ document_type: 'awb', filename: 'guia-aerea.pdf', file_base64: pdf('Guia aerea 176-12345675').toString('base64'), awb_number: 'AWB0000001' });
  pngId = await upload({ document_type: 'customs', filename: 'factura.png', file_base64: png().toString('base64') });
  batchId = await submit(partner.token, [
    item(1, { itemDescription: 'Assorted sample lot misc', hsCode: undefined, fobValueUsd: 200, consigneeIdType: 'CUIT', consigneeIdNumber: '30703088534' }),
    item(2, { itemDescription: 'Cotton t-shirt', fobValueUsd: 20, consigneeIdNumber: person }),
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

const status = () => page.getByRole('status');
const focusedLabel = () => page.evaluate<string>("(() => { const a = document.activeElement; return (a && a.labels && a.labels[0] && a.labels[0].textContent) || '' })()");

const signIn = (token: string) => signInAs(page, `${t.twin.url}/console`, token);

/** The console's TypeScript sources. */
function consoleSources(dir = 'lambdas/http/console'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? consoleSources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

const axe = () => axeOf(page);

/** A screenshot for the guide and an axe-core pass. */
async function check(name: string) {
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  expect(await axe(), name).toEqual([]);
}

describe('the console', () => {
  it('serves its page at /console and at each screen address, its script and stylesheet, under the dashboard content security policy', async () => {
    for (const path of ['/console', '/console/inbox', '/console/documents', `/console/review/${batchId}`]) {
      const res = await fetch(`${t.twin.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy')!;
      for (const d of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "require-trusted-types-for 'script'"]) expect(csp).toContain(d);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(await res.text()).not.toMatch(/<script>|<style|style=|\son[a-z]+=/i);
    }
    const js = await fetch(`${t.twin.url}/console/app.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await js.text()).length).toBeGreaterThan(10_000);
    // The console's own code never writes HTML (Preact's renderer is the only writer of the DOM).
    for (const file of consoleSources()) expect(readFileSync(file, 'utf8'), file).not.toMatch(/innerHTML|dangerouslySetInnerHTML|insertAdjacentHTML|outerHTML|document\.write/);
    expect((await fetch(`${t.twin.url}/console/app.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await fetch(`${t.twin.url}/console/secrets`)).status).toBe(404);
    expect((await fetch(`${t.twin.url}/console/review/a/b`)).status).toBe(404);
  });

  it('answers its pages with permissions Chromium knows (no console error on load) and the legacy XSS filter off', async () => {
    const said: string[] = [];
    const listen = (m: { text(): string }) => said.push(m.text());
    page.on('console', listen);
    try {
      for (const path of ['/console', '/dashboard']) {
        const res = await page.goto(`${t.twin.url}${path}`);
        expect(res!.headers()['x-xss-protection'], path).toBe('0');
        expect(res!.headers()['permissions-policy'], path).toMatch(/^accelerometer=\(\)/);
        await page.locator('main, #app, body').first().waitFor();
      }
      expect(said.filter((text) => /Permissions-Policy|Feature Policy|feature/i.test(text))).toEqual([]);
    } finally {
      page.off('console', listen);
    }
  });

  it('signs in from the keyboard with the field labelled Token, in Spanish by default', async () => {
    await page.goto(`${t.twin.url}/console`);
    await page.getByLabel('Token').waitFor();
    await expect.poll(focusedLabel).toBe('Token');
    await check('sign-in');
    await page.keyboard.type('dsp_not-a-real-token-at-all');
    await page.keyboard.press('Enter');
    await page.getByText('Este token no fue aceptado.').waitFor();
    expect(await focusedLabel()).toBe('Token');
    await page.getByLabel('Token').fill(broker.token);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Secciones' }).waitFor();
    expect(await status().first().textContent()).toContain('Sesión de Aduana Staff (despachante)');
    expect(await page.evaluate<string | null>("sessionStorage.getItem('despacho.console.token')")).toBe(broker.token);
    expect(await page.evaluate<number>('localStorage.length')).toBe(0);
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('es');
  });

  it('switches to English and back', async () => {
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Documents' }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en');
    // A broker starts on the inbox (issue 40).
    await page.getByRole('heading', { level: 1, name: 'Inbox: what needs action' }).waitFor();
    expect(await axe(), 'inbox in English').toEqual([]);
    await page.getByRole('button', { name: 'Cambiar a español' }).click();
    await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Documentos' }).waitFor();
  });

  it('moves through the nav bar from the keyboard: skip link, links, Enter opens a screen and focuses its heading', async () => {
    await page.goto(`${t.twin.url}/console/documents`);
    await page.getByRole('heading', { level: 1, name: 'Documentos de transporte' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Saltar al contenido');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Bandeja');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Manifiestos');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.twin.url}/console/manifests`);
    await page.getByRole('heading', { level: 1, name: 'Manifiestos' }).waitFor();
    // Polled from here: waitForFunction of a string evaluates it in the page by eval, which the console's CSP refuses.
    await expect.poll(() => page.evaluate<string>("document.activeElement ? document.activeElement.id : ''")).toBe('screen-title');
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Documentos de transporte' }).waitFor();
  });

  it('opens a screen on its list when the address holds a malformed item (/console/documents/%E0), not a blank page', async () => {
    await page.goto(`${t.twin.url}/console/documents/%E0`);
    await page.getByRole('heading', { level: 1, name: 'Documentos de transporte' }).waitFor();
  });

  it('Documents: finds the uploaded PDF in the queue, previews it, validates and approves it; rejects the image with a reason', async () => {
    await page.goto(`${t.twin.url}/console/documents`);
    await page.getByRole('link', { name: 'guia-aerea.pdf' }).click();
    await page.waitForURL(`${t.twin.url}/console/documents/${pdfId}`);
    await page.getByRole('heading', { name: 'Detalle: guia-aerea.pdf' }).waitFor();
    const frame = page.locator('iframe[title="Vista previa de guia-aerea.pdf"]');
    await frame.waitFor({ state: 'attached' });
    expect(await frame.getAttribute('src')).toMatch(/^blob:/);
    await check('documents');
    await page.getByRole('button', { name: 'Validar', exact: true }).click();
    await page.getByRole('button', { name: 'Aprobar', exact: true }).waitFor();
    expect((await t.call('GET', `/v1/transport/documents/${pdfId}`, { token: broker.token })).body.data.state).toBe('validated');
    await page.getByLabel('Notas / Motivo').fill('Firma y sello correctos');
    await page.getByRole('button', { name: 'Aprobar', exact: true }).click();
    await page.getByRole('definition').getByText('Aprobado').waitFor();
    await expect.poll(async () => (await t.call('GET', `/v1/transport/documents/${pdfId}`, { token: broker.token })).body.data.state).toBe('approved');

    await page.goto(`${t.twin.url}/console/documents/${pngId}`);
    await page.getByRole('img', { name: 'Vista previa de factura.png' }).waitFor();
    await page.getByRole('button', { name: 'Rechazar', exact: true }).click();
    await page.getByText('Escribí el motivo.').waitFor();
    await expect.poll(focusedLabel).toBe('Notas / Motivo');
    await page.getByLabel('Notas / Motivo').fill('Factura ilegible');
    await page.getByRole('button', { name: 'Rechazar', exact: true }).click();
    await expect.poll(async () => (await t.call('GET', `/v1/transport/documents/${pngId}`, { token: broker.token })).body.data).toMatchObject({ state: 'rejected', rejection_reason: 'Factura ilegible' });
  });

  it('Documents: shows the whole audit in Spanish (who validated, approved and rejected, when, the approval note and the reason) and each courier by name', async () => {
    const fact = (term: string) => page.locator('dl.facts dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');
    await page.goto(`${t.twin.url}/console/documents/${pdfId}`);
    await page.getByRole('heading', { name: 'Detalle: guia-aerea.pdf' }).waitFor();
    await fact('Aprobado por').waitFor();
    expect(await fact('Validado por').textContent()).toMatch(/^Aduana Staff.*, \d/);
    expect(await fact('Aprobado por').textContent()).toMatch(/^Aduana Staff.*, \d/);
    expect(await fact('Notas de la aprobación').textContent()).toBe('Firma y sello correctos');
    expect(await page.locator('dl.facts').textContent()).not.toMatch(/Rechazado por/);
    await page.goto(`${t.twin.url}/console/documents/${pngId}`);
    await fact('Rechazado por').waitFor();
    expect(await fact('Rechazado por').textContent()).toMatch(/^Aduana Staff.*, \d/);
    expect(await fact('Motivo del rechazo').textContent()).toBe('Factura ilegible');
    // The queue names the courier, never its account number; nothing of the screen is the API's English.
    await page.getByLabel('Estado').selectOption('');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    const listed = page.getByRole('row').filter({ hasText: 'guia-aerea.pdf' });
    await listed.waitFor();
    expect(await listed.getByRole('cell').allTextContents()).toContain('Console Couriers');
    expect(await page.getByRole('main').textContent()).not.toMatch(/Uploaded by|Approved by|Pending approval|Air waybill|\bApproved\b|\bRejected\b/);
    await check('documents-audit');
  });

  it('Manifests: follows a batch to completed, shows its summary, downloads json, csv and xlsx, closes and reopens it', async () => {
    await page.goto(`${t.twin.url}/console/manifests`);
    // The broker's list holds every account's batches: the partner's is there, with its account.
    const listed = page.getByRole('row').filter({ hasText: batchId });
    await listed.waitFor();
    expect(await listed.textContent()).toContain('Console Couriers');
    await page.getByLabel('Id de lote').fill(batchId);
    await page.getByRole('button', { name: 'Abrir' }).click();
    await page.waitForURL(`${t.twin.url}/console/manifests/${batchId}`);
    await page.getByRole('heading', { name: /Procesamiento: completado/ }).waitFor({ timeout: 60_000 });
    expect(await page.getByRole('progressbar', { name: 'Progreso' }).getAttribute('value')).toBe('100');
    // The regime stage is Régimen and the tariff stage Clasificación arancelaria (a broker read "Clasificación" as the tariff's).
    for (const stage of ['Régimen', 'Clasificación arancelaria']) await page.getByRole('progressbar', { name: new RegExp(`^${stage} \\(completado\\)$`) }).waitFor();
    const api = (await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token: broker.token })).body.data;
    const amount = await page.locator('dd.amount').textContent();
    expect(amount).toContain(api.summary.amount_to_pay.toFixed(2).replace('.', ','));
    // The rate's day (or the day whose rate it waits for) as a reader in Argentina writes it, not ISO.
    const rateDay: string = api.summary.exchange_rate?.date ?? api.summary.pesos_pending?.date;
    const [year, month, dayOfMonth] = rateDay.split('-').map(Number);
    const months = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];
    const summaryText = (await page.locator('dl').filter({ hasText: 'A pagar en pesos' }).first().textContent()) ?? '';
    expect(summaryText).toContain(`${dayOfMonth} de ${months[month - 1]} de ${year}`);
    expect(summaryText).not.toContain(rateDay);
    for (const format of ['JSON', 'CSV', 'XLSX']) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Descargar ${format}` }).click()]);
      expect(download.suggestedFilename()).toMatch(new RegExp(`\\.${format.toLowerCase()}$`));
      const file = readFileSync((await download.path())!);
      if (format === 'JSON') expect(JSON.parse(file.toString('utf8')).data.total_products).toBe(2);
      // The console in Spanish asks for lang=es: Spanish headers and sheet names.
      if (format === 'CSV') expect(file.toString('utf8')).toMatch(/^guia_aerea,numero_de_seguimiento,descripcion,[^\r]*\r\n[^]*AWB0000001/);
      if (format === 'XLSX') expect(XLSX.read(file, { type: 'buffer' }).SheetNames).toEqual(['Productos', 'Resumen']);
    }
    await page.getByRole('heading', { name: 'Decisiones por ítem (modo actualización)' }).waitFor();
    const log = page.getByRole('region', { name: 'Decisiones por ítem (modo actualización)' });
    await expect.poll(async () => (await log.textContent()) ?? '').toMatch(/ALTA.*no había un registro en el lote/);
    expect(await log.textContent()).not.toMatch(/CREATE|no existing record/);
    await check('manifests');
    // A product still awaits review: closing asks first, saying how many, and Cancelar keeps it open.
    await page.getByRole('button', { name: 'Cerrar el lote' }).click();
    await page.getByText('Quedan 1 productos sin revisar en este lote. ¿Cerrarlo igual?').waitFor();
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Cerrar igual');
    expect(await axe(), 'close confirmation').toEqual([]);
    await page.getByRole('button', { name: 'Cancelar' }).click();
    expect((await t.call('GET', `/v1/manifests/${batchId}`, { token: partner.token })).body.data.manifest.closed_at).toBeNull();
    await page.getByRole('button', { name: 'Cerrar el lote' }).click();
    await page.getByRole('button', { name: 'Cerrar igual' }).click();
    await page.getByRole('button', { name: 'Reabrir el lote' }).waitFor();
    expect((await t.call('GET', `/v1/manifests/${batchId}`, { token: partner.token })).body.data.manifest.closed_at).not.toBeNull();
    await page.getByRole('button', { name: 'Reabrir el lote' }).click();
    await page.getByRole('button', { name: 'Cerrar el lote' }).waitFor();
    expect((await t.call('GET', `/v1/manifests/${batchId}`, { token: partner.token })).body.data.manifest.closed_at).toBeNull();
  });

  it('Manifests: follows a batch from pending to completed by polling its pipeline status, without a reload', async () => {
    // The dispatcher stops so the batch waits, pending, until the test lets its jobs run.
    await t.twin.jobs.stop();
    try {
      const key = randomUUID();
      const res = await t.call('POST', submitPath(), { token: partner.token, body: { mawbNumber: `MAWB-${key.slice(0, 8)}`, items: [item(900, { fobValueUsd: 30 })] }, headers: { 'idempotency-key': key } });
      expect(res.status).toBe(202);
      await t.intake();
      const waiting = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token: partner.token })).body.batch_id as string;
      await page.goto(`${t.twin.url}/console/manifests/${waiting}`);
      await page.getByRole('heading', { name: /Procesamiento: (pendiente|procesando)/ }).waitFor();
      expect(await page.getByRole('progressbar', { name: 'Progreso' }).getAttribute('value')).toBe('0');
      await page.evaluate('window.__sameDocument = true');
      await t.twin.jobs.runDue();
      await page.getByRole('heading', { name: 'Procesamiento: completado' }).waitFor();
      expect(await page.getByRole('progressbar', { name: 'Progreso' }).getAttribute('value')).toBe('100');
      expect(await page.evaluate<boolean>('window.__sameDocument === true')).toBe(true);
      await page.getByRole('button', { name: 'Descargar JSON' }).waitFor();
    } finally {
      t.twin.jobs.start(50);
    }
  });

  it("Review: corrects a product's NCM, sees its duty change, and the API's product and log agree; then closes the batch", async () => {
    // The day's rate set (the batch waited for it): its products get pesos, which the review shows under the dollars.
    const waitedFor = (await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token: broker.token })).body.data.summary.pesos_pending.date;
    expect((await t.call('PUT', `/v1/admin/exchange-rates/${waitedFor}`, { body: { rate: 1000.5, source: 'BNA divisa vendedor' } })).status).toBe(201);
    await t.settle();
    await page.goto(`${t.twin.url}/console/manifests/${batchId}`);
    await page.getByRole('link', { name: 'Revisar este lote' }).click();
    await page.waitForURL(`${t.twin.url}/console/review/${batchId}`);
    const row = page.getByRole('row').filter({ hasText: 'AWB0000001' });
    await row.waitFor();
    expect(await row.textContent()).toContain('baja confianza');
    // The evidence that decided the code, not the channel rule's sentence about the threshold.
    const evidence = (await t.call('GET', `/v1/couriers/manifests/${batchId}/review`, { token: broker.token })).body.data.find((p: { awb_number: string }) => p.awb_number === 'AWB0000001').classification_evidence;
    expect(evidence).toEqual(expect.any(String));
    // The evidence, the reasons and the source in Spanish (issue 40, 6): none of the API's English reaches the row.
    expect(await row.textContent()).toContain('Evidencia: ');
    expect(await row.textContent()).not.toContain(evidence);
    expect(await row.textContent()).not.toContain('low-confidence:');
    expect(await row.textContent()).toMatch(/Evidencia: (Coincidieron|Ninguna fila del arancel|Nomenclatura SA|El código declarado|Se mantiene)/);
    const inPesos = (await t.call('GET', `/v1/couriers/manifests/${batchId}/review`, { token: broker.token })).body.data.find((p: { awb_number: string }) => p.awb_number === 'AWB0000001').customs_duty_ars;
    expect(inPesos).toEqual(expect.any(Number));
    expect(await row.textContent()).toContain(`$\u00a0${inPesos.toLocaleString('es-AR', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`);
    // The candidates' duty is a rate, said so.
    expect(await row.textContent()).toMatch(/\d{4}\.\d{2}\.\d{2} · arancel \d+(\.\d+)?% · /);
    const table = (await page.locator('table.review').textContent()) ?? '';
    expect(table).not.toMatch(/Shipment (CIF|FOB) above|Deterministic random sample|No risk rule applies|The consignee's tax id|Prohibited goods|consignee is|personal: the|within the courier limits|Matched |No tariff row|HS fallback|Partner hsCode|tariff code|offline|hs-fallback|\bpartner\b/);
    expect(table).toMatch(/el destinatario es una empresa|dentro de los límites courier|personal: el destinatario/);
    await check('review');
    const before = (await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token: broker.token })).body.data.products.find((p: { awb_number: string }) => p.awb_number === 'AWB0000001');
    await row.getByRole('button', { name: 'Confirmar o corregir NCM: AWB0000001' }).click();
    await expect.poll(focusedLabel).toBe('NCM decidido');
    await page.getByLabel('NCM decidido').fill('4202.92.00');
    await page.getByRole('button', { name: 'Guardar decisión' }).click();
    // The API's field message in Spanish, beside the field (api-errors.ts), and the status line too.
    await page.getByText('No puede estar vacío.').first().waitFor();
    expect(await status().textContent()).toBe('Error: Los datos enviados no son válidos.');
    expect(await page.getByRole('main').textContent()).not.toMatch(/Must not be empty|The given data was invalid/);
    await page.getByLabel('Motivo', { exact: true }).fill('Mochilas de poliéster según factura');
    await page.getByRole('button', { name: 'Guardar decisión' }).click();
    await status().getByText(/NCM de AWB0000001: 4202\.92\.00/).waitFor();
    // Focus stays in the queue: on the next row's button, or the heading when the queue is empty.
    await expect
      .poll(() => page.evaluate<string>("(() => { const a = document.activeElement; return a ? (a.getAttribute('aria-label') || a.tagName) : '' })()"))
      .toMatch(/^(Confirmar o corregir NCM: AWB(?!0000001)\d+|H2)$/);
    const after = (await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token: broker.token })).body.data.products.find((p: { awb_number: string }) => p.awb_number === 'AWB0000001');
    expect(after).toMatchObject({ ncm_code: '4202.92.00', classification_source: 'broker' });
    expect(after.customs_duty).not.toBe(before.customs_duty);
    const shown = (n: number) => `US\\$\\s?${n.toFixed(2).replace('.', ',')}`;
    expect(await status().textContent()).toMatch(new RegExp(`Derechos ${shown(before.customs_duty)} → ${shown(after.customs_duty)}, canal V`));
    // Decided, in channel V at confidence 1: it leaves the queue.
    await row.waitFor({ state: 'detached' });
    await page.goto(`${t.twin.url}/console/manifests/${batchId}`);
    await page.getByRole('heading', { name: 'Decisiones del despachante' }).waitFor();
    // Who decided, so named (not "Subido por").
    await page.getByRole('columnheader', { name: 'Decidido por' }).waitFor();
    expect(await page.getByRole('columnheader', { name: 'Subido por' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Cerrar el lote' }).click();
    await page.getByRole('button', { name: 'Reabrir el lote' }).waitFor();
    expect((await t.call('GET', `/v1/manifests/${batchId}`, { token: partner.token })).body.data.manifest.closed_at).not.toBeNull();
  });

  it("Quota: a tax id's personal shipments of the year and the batch that used them", async () => {
    await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Cupo' }).click();
    await page.getByLabel('CUIT, CUIL o DNI').fill(person);
    await page.getByRole('main').getByRole('button', { name: 'Buscar' }).click(); // the top bar has its own (the search, issue 40)
    await page.getByText(/1 de 5 envíos personales usados/).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'AWB0000002' });
    await row.getByRole('link', { name: new RegExp(batchId) }).waitFor();
    await check('quota');
  });

  it('Webhooks: lists the subscriptions and opens the webhook dashboard already signed in', async () => {
    await t.call('POST', '/webhook-subscriptions', { token: broker.token, body: { endpoint_url: 'https://example.com/hooks', events: ['document.approved'] } });
    await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Webhooks' }).click();
    const sub = page.getByRole('row').filter({ hasText: 'https://example.com/hooks' });
    await sub.waitFor();
    // The health status in the console's language (Spanish by default), not the API's word.
    expect(await sub.textContent()).toContain('sana');
    await check('webhooks');
    await page.getByRole('link', { name: 'Abrir el panel de webhooks' }).click();
    await page.waitForURL(`${t.twin.url}/dashboard`);
    // The dashboard speaks the console's language: Spanish here, its words and the API's values.
    await page.getByRole('button', { name: 'Salir' }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('es');
    await page.getByRole('row').filter({ hasText: 'https://example.com/hooks' }).getByText('sana').waitFor();
    expect(await page.getByRole('main').textContent()).not.toMatch(/Subscriptions|Send test|Delete|Never|healthy|Add endpoint|Document approved/);
    expect(await axe(), 'dashboard in Spanish').toEqual([]);
    // Its English switch is the console's: switched here, the console is in English too.
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await page.getByRole('button', { name: 'Send test' }).waitFor();
    await page.getByRole('link', { name: 'Back to the console' }).click();
    await page.waitForURL(`${t.twin.url}/console/webhooks`);
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    await page.getByRole('button', { name: 'Cambiar a español' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByRole('navigation', { name: 'Secciones' }).waitFor();
  });

  it('shows a partner what its role allows: no document actions, no NCM corrections, no close', async () => {
    await signIn(partner.token);
    await page.goto(`${t.twin.url}/console/documents/${pdfId}`);
    await page.getByRole('heading', { name: 'Detalle: guia-aerea.pdf' }).waitFor();
    expect(await page.getByRole('button', { name: /Validar|Aprobar|Rechazar/ }).count()).toBe(0);
    // No documents selected many at once, no inbox across couriers (issue 40).
    expect(await page.getByRole('checkbox').count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Bandeja' }).count()).toBe(0);
    await page.goto(`${t.twin.url}/console/review/${batchId}`);
    await page.getByRole('heading', { level: 2, name: new RegExp(batchId) }).waitFor();
    expect(await page.getByRole('button', { name: /Confirmar o corregir/ }).count()).toBe(0);
    await page.goto(`${t.twin.url}/console/manifests/${batchId}`);
    await page.getByRole('heading', { name: /Procesamiento/ }).waitFor();
    expect(await page.getByRole('button', { name: /Cerrar el lote|Reabrir el lote/ }).count()).toBe(0);
    await check('partner-manifests');
    expect(problems).toEqual([]);
  });

  it('names the scope a screen reads to a token without it, leaves that screen out of the nav, and a refused action names its scope in Spanish', async () => {
    const narrow = await t.call('POST', '/v1/admin/tokens', { body: { account_id: partner.accountId, name: 'manifests only', role: 'partner', scopes: ['manifests:read'] } });
    expect(narrow.status).toBe(201);
    await signIn(narrow.body.data.token);
    const nav = page.getByRole('navigation', { name: 'Secciones' });
    expect(await nav.getByRole('link', { name: 'Manifiestos' }).count()).toBe(1);
    expect(await nav.getByRole('link', { name: 'Documentos' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    const asked: string[] = [];
    page.on('request', (r) => asked.push(r.url()));
    await page.goto(`${t.twin.url}/console/documents`);
    await page.getByText('Tu token no tiene el permiso documents:read que usa esta pantalla. Pedí uno que lo tenga.').waitFor();
    expect(asked.filter((u) => u.includes('/api/v1/transport/documents'))).toEqual([]);
    await check('lacks-scope');
    expect(errorMessageEs('forbidden', 403, 'This action needs the review:write scope.')).toBe('Tu token no tiene el permiso review:write que pide esta acción.');
    expect(problems).toEqual([]);
  });
});

describe('the review of a 10,000-item batch', () => {
  let big = '';

  // The batch's setup in two steps, so that neither runs near the runner's limits (issue 45).
  let written = '';
  it('accepts a 10,000-item batch and writes every item (intake)', { timeout: 400_000 }, async () => {
    const items = Array.from({ length: 10_000 }, (_, k) =>
      item(100_000 + k, { itemDescription: k % 3 ? 'Cotton t-shirt' : `Assorted sample lot ${k}`, hsCode: k % 3 ? '6109.10.00' : undefined, consigneeIdType: 'CUIT', consigneeIdNumber: '30703088534' }),
    );
    written = await submit(partner.token, items);
  });

  it('takes the 10,000-item batch through the pipeline to completed', { timeout: 400_000 }, async () => {
    if (!written) throw new Error('the 10,000-item batch (the test before) was not written: nothing to process');
    await completedBatch(t, partner.token, written);
    big = written;
  });

  it('shows its first page from one bounded read of the API: a single page of 25 products, whatever the batch size', async () => {
    // The 1 s from navigation to the first row is a figure of a quiet machine, measured by
    // `npm run bench:review`; what makes it hold on any machine is checked here: the screen asks
    // the API for one page, and that page is 25 products of a few KB each, not the batch.
    if (!big) throw new Error('the 10,000-item batch (the test before) did not complete: nothing to review');
    await signIn(broker.token);
    await page.goto(`${t.twin.url}/console/documents`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const reads: { url: string; bytes: Promise<number> }[] = [];
    const onResponse = (res: import('playwright-core').Response) => {
      if (res.url().includes(`/api/v1/couriers/manifests/${big}/`)) reads.push({ url: res.url(), bytes: res.body().then((b) => b.length) });
    };
    page.on('response', onResponse);
    const started = Date.now();
    await page.goto(`${t.twin.url}/console/review/${big}`);
    await page.locator('table.review tbody tr').first().waitFor();
    const ms = Date.now() - started;
    page.off('response', onResponse);
    const sizes = await Promise.all(reads.map((r) => r.bytes));
    console.log(`review of 10,000 items: first row visible ${ms} ms after navigation; read ${reads.map((r, k) => `${new URL(r.url).pathname.split(big)[1]} ${sizes[k]} B`).join(', ')}`);
    const pages = reads.filter((r) => new URL(r.url).pathname.endsWith('/review'));
    expect(pages).toHaveLength(1);
    expect(new URL(pages[0].url).searchParams.get('per_page')).toBe('25');
    // 25 products with their candidates: tens of KB, where the batch's 3,334 awaiting review are megabytes.
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(400_000);
    expect(await page.locator('table.review tbody tr').count()).toBe(25);
    await page.getByRole('navigation', { name: 'Productos para revisar' }).getByRole('button', { name: 'Siguiente' }).click();
    await page.getByText('Página 2').waitFor();
    await check('review-10000');
  });
});
