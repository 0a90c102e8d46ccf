/**
 * The webhook dashboard end to end: Debian's Chromium (driven by playwright-core) against a twin
 * that runs its jobs by itself, delivering to a local receiver. Everything the partner does goes
 * through the page, found by label and role; only the document upload that triggers a delivery
 * goes through the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { useTwin } from '#support/twin';
import { useReceiver, type Received } from '#support/receiver';
import { pdf } from '#support/files';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const t = useTwin({ jobPollMs: 50 });
const receiver = useReceiver();

let browser: Browser;
let context: BrowserContext;
let page: Page;
let partner: { accountId: number; token: string };
let secret = '';
/** Content-Security-Policy and Trusted Types violations, and uncaught script errors. */
const problems: string[] = [];

beforeAll(async () => {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium is not installed at ${chromiumPath}: the dashboard test needs it. ` +
        'Install Debian\'s chromium (apt-get install -y --no-install-recommends chromium; .ci/run does this) or set CHROMIUM_PATH.',
    );
  }
  const probe = await fetch(`${t.twin.url}/dashboard`);
  if (probe.status !== 200) throw new Error(`GET /dashboard answered ${probe.status}: are the dashboard routes (lambdas/catalog/dashboard.ts) in the catalog?`);
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.twin.url });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Trusted Type|Refused to/i.test(msg.text())) problems.push(msg.text());
  });
  partner = await t.account('Dashboard Couriers');
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const status = () => page.getByRole('status');
const subscriptionRow = () => page.getByRole('row').filter({ hasText: receiver.url });
const deliveryRow = () => page.getByRole('region', { name: /Deliveries to/ }).getByRole('row').filter({ hasText: 'document.uploaded' });

/** Waits until `text()` matches, pressing `refresh` (if given) between looks. */
async function until(text: () => Promise<string>, pattern: RegExp, refresh?: Locator, ms = 15_000): Promise<string> {
  const end = Date.now() + ms;
  let last = '';
  for (;;) {
    last = await text().catch(() => '');
    if (pattern.test(last)) return last;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${pattern}; last seen: ${JSON.stringify(last)}`);
    if (refresh) await refresh.click();
    await new Promise((r) => setTimeout(r, refresh ? 400 : 100));
  }
}

function signedWith(r: Received, key: string): boolean {
  const ts = String(r.headers['x-service-timestamp']);
  return r.headers['x-service-signature'] === 'sha256=' + createHmac('sha256', key).update(`${ts}.${r.body}`).digest('hex');
}

/** Browser-side checks are strings: the test compiles without the DOM library. */
const focusedLabel = () => page.evaluate<string>("(() => { const a = document.activeElement; return (a && a.labels && a.labels[0] && a.labels[0].textContent) || '' })()");

describe('the webhook dashboard', () => {
  it('serves the page, its script and stylesheet under a strict content security policy', async () => {
    const res = await fetch(`${t.twin.url}/dashboard`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const csp = res.headers.get('content-security-policy')!;
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) expect(csp).toContain(directive);
    expect(csp).not.toMatch(/unsafe-inline|sandbox|upgrade-insecure-requests/);
    const html = await res.text();
    expect(html).not.toMatch(/<script>|<style|style=|\son[a-z]+=/i);
    let total = html.length;
    for (const [asset, type] of [['app.js', 'text/javascript; charset=utf-8'], ['app.css', 'text/css; charset=utf-8']]) {
      const file = await fetch(`${t.twin.url}/dashboard/${asset}`);
      expect(file.status, asset).toBe(200);
      expect(file.headers.get('content-type'), asset).toBe(type);
      total += (await file.text()).length;
    }
    // Unminified, readable: the page in two languages (Spanish and English words, the API's errors in Spanish, issue 40) is about 42 KB.
    expect(total).toBeLessThan(45_000);
    expect((await fetch(`${t.twin.url}/dashboard/secrets.txt`)).status).toBe(404);
  });

  it('speaks Spanish by default, and English from its switch, kept for the tab as the console keeps it (issue 40)', async () => {
    await page.goto(`${t.twin.url}/dashboard`);
    await page.getByRole('heading', { level: 1, name: 'Webhooks de Despacho' }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('es');
    await page.getByLabel('Token de la API').fill('dsp_not-a-real-token-at-all');
    await page.getByRole('button', { name: 'Ingresar' }).click();
    await page.getByText('Este token no fue aceptado.').waitFor();
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await page.getByRole('heading', { level: 1, name: 'Despacho webhooks' }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en');
    expect(await page.evaluate<string | null>("sessionStorage.getItem('despacho.console.lang')")).toBe('en');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('lang');
  });

  it('signs in from the keyboard: Tab to the token field, type, press Enter', async () => {
    await page.goto(`${t.twin.url}/dashboard`);
    // The first stop is the language switch (Español now), the next the token field.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('lang');
    await page.keyboard.press('Tab');
    expect(await focusedLabel()).toBe('API token');
    await page.keyboard.type('dsp_not-a-real-token-at-all');
    await page.keyboard.press('Enter');
    await page.getByText('This token was not accepted.').waitFor();
    expect(await focusedLabel()).toBe('API token');

    await page.getByLabel('API token').fill(partner.token);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await status().textContent()).toContain('Signed in as Dashboard Couriers');
    expect(await page.evaluate<string | null>("sessionStorage.getItem('despacho.dashboard.token')")).toBe(partner.token);
    expect(await page.evaluate<number>('localStorage.length')).toBe(0);
    await page.getByText('No subscriptions yet').waitFor();
  });

  it('shows field errors from the API next to the fields', async () => {
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('Name at least one event.').waitFor();
    expect(await page.getByRole('group', { name: 'Events' }).getAttribute('aria-invalid')).toBe('true');
  });

  it('adds an endpoint and shows its signing secret once, with a copy button', async () => {
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    expect(await page.getByLabel('document.uploaded', { exact: true }).isChecked()).toBe(false);
    await page.getByLabel('document.uploaded', { exact: true }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();

    const shown = page.getByLabel('Signing secret', { exact: true });
    await shown.waitFor();
    secret = await shown.inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByText('it is shown only once').first().waitFor();
    await subscriptionRow().waitFor();
    expect(await subscriptionRow().textContent()).toMatch(/healthy/);

    await page.getByRole('button', { name: 'Copy secret' }).click();
    await until(() => status().textContent().then(String), /copied/);
    // The page may only write the clipboard; read it back from another page of the same origin.
    const reader = await context.newPage();
    await reader.goto(`${t.twin.url}/api/health`);
    expect(await reader.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    await reader.close();

    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByLabel('Signing secret', { exact: true }).count()).toBe(0);
    expect(await page.evaluate<boolean>(`document.documentElement.outerHTML.includes(${JSON.stringify(secret)}) || [...document.querySelectorAll('input')].some((i) => i.value === ${JSON.stringify(secret)})`)).toBe(false);
  });

  it('sends a signed test delivery and shows its result', async () => {
    receiver.clear();
    await subscriptionRow().getByRole('button', { name: 'Send test' }).click();
    await until(() => subscriptionRow().textContent().then(String), /Last test delivered: HTTP 200 in \d+ ms/);
    expect(await status().textContent()).toContain('HTTP 200');
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].headers['x-service-event']).toBe('webhook.test');
    expect(signedWith(receiver.received[0], secret)).toBe(true);
  });

  it('shows the subscription disabled after its endpoint answers 410, and the failed delivery', async () => {
    receiver.clear();
    receiver.status = () => 410;
    const upload = await t.call('POST', '/v1/transport/documents/upload', {
      token: partner.token,
      body: { document_type: 'awb', filename: 'guia.pdf', file_base64: pdf('dashboard').toString('base64') },
    });
    expect(upload.status).toBe(201);
    const row = await until(() => subscriptionRow().textContent().then(String), /disabled/, page.getByRole('button', { name: 'Refresh subscriptions' }));
    expect(row).toContain('410 Gone');
    expect(await subscriptionRow().getByRole('button', { name: 'Reactivate' }).count()).toBe(1);

    await subscriptionRow().getByRole('button', { name: 'Send test' }).click();
    await until(() => subscriptionRow().textContent().then(String), /Last test failed: HTTP 410\./);
    expect(await status().textContent()).toBe(`Test of ${receiver.url} failed: HTTP 410.`);

    await subscriptionRow().getByRole('button', { name: 'Deliveries' }).click();
    await deliveryRow().waitFor();
    // Cells after the event's row header: state, attempts, last result, next attempt, created, actions.
    expect((await deliveryRow().getByRole('cell').allTextContents()).slice(0, 4)).toEqual(['failed', '1', 'HTTP 410', '—']);
    expect(await page.evaluate<string>("document.activeElement.tagName + ': ' + document.activeElement.textContent")).toBe(`H2: Deliveries to ${receiver.url}`);

    // For a human to look at: a disabled subscription and its failed delivery.
    mkdirSync('.bench', { recursive: true });
    await page.screenshot({ path: '.bench/dashboard.png', fullPage: true });
  });

  it('reactivates the subscription, then retries the failed delivery and sees it delivered', async () => {
    receiver.clear();
    await subscriptionRow().getByRole('button', { name: 'Reactivate' }).click();
    await until(() => subscriptionRow().textContent().then(String), /healthy/);
    expect(await subscriptionRow().getByRole('button', { name: 'Reactivate' }).count()).toBe(0);

    receiver.status = () => 200;
    await deliveryRow().getByRole('button', { name: 'Retry' }).click();
    await until(() => deliveryRow().textContent().then(String), /delivered/);
    expect((await deliveryRow().getByRole('cell').allTextContents()).slice(0, 4)).toEqual(['delivered', '2', 'HTTP 200', '—']);
    expect(await deliveryRow().getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(await status().textContent()).toMatch(/delivered/);

    expect(receiver.received).toHaveLength(1);
    const delivery = receiver.received[0];
    expect(delivery.headers['x-service-event']).toBe('document.uploaded');
    expect(signedWith(delivery, secret)).toBe(true);
    expect(signedWith(delivery, 'whsec_someone-else')).toBe(false);
  });

  it('deletes a subscription after a confirmation, and signs out', async () => {
    page.once('dialog', (d) => void d.accept());
    await subscriptionRow().getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No subscriptions yet').waitFor();
    expect((await t.call('GET', '/webhook-subscriptions', { token: partner.token })).body.count).toBe(0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate<string | null>("sessionStorage.getItem('despacho.dashboard.token')")).toBeNull();
    expect(await focusedLabel()).toBe('API token');
    expect(problems).toEqual([]);
  });
});
