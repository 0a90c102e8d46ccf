import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Debian's Chromium for the browser tests (playwright-core), a page that records what must never
 * happen (page errors, content security policy refusals, a 404 the page loaded by itself), and
 * axe-core's serious and critical violations.
 */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function openBrowser(): Promise<{ browser: Browser; page: Page; problems: string[] }> {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium is not installed at ${chromiumPath}: the browser tests need it (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Trusted Type|Refused to/i.test(msg.text())) problems.push(msg.text());
  });
  page.on('response', (res) => {
    if (res.status() === 404 && !res.url().includes('/api/')) problems.push(`404 ${res.url()}`);
  });
  return { browser, page, problems };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now. */
export async function axe(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const found = await page.evaluate<{ id: string; impact: string; nodes: { target: string[] }[] }[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) })))",
  );
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Signs the page in with `token` through the console's form (signing out first when signed in). */
export async function signIn(page: Page, consoleUrl: string, token: string): Promise<void> {
  await page.goto(consoleUrl);
  const out = page.getByRole('button', { name: 'Salir' });
  const field = page.getByLabel('Token');
  await out.or(field).first().waitFor();
  if (await out.isVisible()) await out.click();
  await field.fill(token);
  await page.keyboard.press('Enter');
  await page.getByRole('navigation', { name: 'Secciones' }).waitFor();
}
