/**
 * Copies the console's screenshots that test/e2e/console.test.ts wrote under .bench/console into
 * docs/brokers/console (the console's guide, docs/brokers/console.md), scaled to at most 800 px wide so the repository keeps small
 * files. `npx vitest run test/e2e/console.test.ts && npx tsx scripts/console-screenshots.ts`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';

const from = '.bench/console';
const to = 'docs/brokers/console';
const screens = ['sign-in', 'documents', 'documents-audit', 'manifests', 'review', 'quota', 'webhooks'];
const maxWidth = 800;

mkdirSync(to, { recursive: true });
for (const name of screens) {
  const image = await loadImage(readFileSync(join(from, `${name}.png`)));
  const scale = Math.min(1, maxWidth / image.width);
  const canvas = createCanvas(Math.round(image.width * scale), Math.round(image.height * scale));
  canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
  const png = await canvas.encode('png');
  writeFileSync(join(to, `${name}.png`), png);
  console.log(`${to}/${name}.png ${canvas.width}x${canvas.height} ${(png.length / 1024).toFixed(0)} KB`);
}
