/**
 * The reference page end to end: Debian's Chromium (driven by playwright-core) against a twin. The
 * page loads with no request leaving the twin's origin, lists the routes and shows a response
 * schema from openapi.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { useTwin } from '#support/twin';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const t = useTwin();

let browser: Browser;
let page: Page;
/** Content-Security-Policy violations, uncaught script errors, and answers from any other origin. */
const problems: string[] = [];
/**
 * Redoc's attribution logo points at cdn.redoc.ly: the page's CSP refuses it (it never loads, and
 * the image hides itself); the one refusal expected.
 */
const attributionLogo = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg/;

beforeAll(async () => {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium is not installed at ${chromiumPath}: the reference page test needs it. ` +
        "Install Debian's chromium (apt-get install -y --no-install-recommends chromium; .ci/run does this) or set CHROMIUM_PATH.",
    );
  }
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  page = await context.newPage();
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text()) && !attributionLogo.test(msg.text())) problems.push(msg.text());
  });
  page.on('requestfinished', (req) => {
    const url = new URL(req.url());
    if (url.protocol.startsWith('http') && url.origin !== t.twin.url) problems.push(`answer from another origin: ${req.url()}`);
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('the reference page', () => {
  it('answers with the security headers of a page that runs only its own script', async () => {
    const res = await fetch(`${t.twin.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('loads in Chromium, lists the routes and shows a response schema', async () => {
    await page.goto(`${t.twin.url}/api/docs`);
    // The table of contents: every tag, and under each its operations (by operation id).
    for (const href of ['#/system/health', '#/orders', '#/documents', '#/webhooks', '#/couriers/courierssubmit', '#/couriers/courierspipelinestatus']) {
      await page.locator(`a[href="${href}"]`).first().waitFor({ state: 'attached' });
    }
    // GET pipeline-status: its 200 answer's schema, read from openapi.json.
    await page.locator('a[href="#/couriers/courierspipelinestatus"]').first().click();
    await expect.poll(async () => page.locator('body').innerText(), { timeout: 30_000 }).toMatch(/overall_progress[\s\S]*pipeline_steps|pipeline_steps[\s\S]*overall_progress/);
    expect(problems).toEqual([]);
  }, 120_000);
});
