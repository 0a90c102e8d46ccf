import { describe, expect, it } from 'vitest';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { decodeGif, GifUnreadable } from '#infra/carriers/gif';
import { imageLabelPdf } from '#infra/label-pdf';
import { encodeGif } from '#twin/gif';
import { prng } from '#twin/prng';
import { printPage, readLabel, scanCode128 } from '#support/labels/label-reading';
import { code128 } from 'bwip-js/node';
import { bwipPngToGray } from '#infra/barcode';

function image(width: number, height: number, colors: number, change: number, seed: number) {
  const rand = prng(seed);
  const palette = Buffer.from(Array.from({ length: colors * 3 }, (_, i) => (i * 37) & 255));
  const indices = Buffer.alloc(width * height);
  let v = 0;
  for (let i = 0; i < indices.length; i++) {
    if (rand() < change) v = Math.floor(rand() * colors);
    indices[i] = v;
  }
  return { palette, indices };
}

describe('UPS GIF labels', () => {
  it('decodes what the GIF writer wrote, pixel for pixel, and Skia reads the same pixels', async () => {
    for (const [w, h, colors, change] of [
      [300, 200, 2, 0.5],
      [1200, 800, 4, 0.01],
      [97, 53, 256, 1],
    ] as const) {
      const { palette, indices } = image(w, h, colors, change, w);
      const gif = encodeGif(w, h, palette, indices);
      const decoded = decodeGif(gif);
      expect([decoded.width, decoded.height]).toEqual([w, h]);
      expect(decoded.indices.equals(indices)).toBe(true);
      const canvas = createCanvas(w, h);
      const ctx = canvas.getContext('2d');
      ctx.drawImage(await loadImage(gif), 0, 0);
      const rgba = ctx.getImageData(0, 0, w, h).data;
      let mismatches = 0;
      for (let i = 0; i < w * h; i++) if (rgba[i * 4] !== palette[indices[i] * 3]) mismatches++;
      expect(mismatches).toBe(0);
    }
  });

  it('refuses a file that is not a GIF, or is cut short, with GifUnreadable', () => {
    const { palette, indices } = image(50, 40, 2, 0.3, 1);
    const gif = encodeGif(50, 40, palette, indices);
    expect(() => decodeGif(Buffer.from('%PDF-1.4'))).toThrow(GifUnreadable);
    expect(() => decodeGif(gif.subarray(0, gif.length - 40))).toThrow(GifUnreadable);
    expect(() => decodeGif(Buffer.concat([gif.subarray(0, 13), Buffer.from([0x3b])]))).toThrow(GifUnreadable);
  });

  it('puts a landscape GIF label on a 4x6 page turned upright, its barcode readable at 203 dpi', async () => {
    const code = bwipPngToGray(await code128({ bcid: 'code128', text: '1ZA1B2C36512345678', scale: 2, height: 25, paddingwidth: 10, backgroundcolor: 'FFFFFF' }));
    // Portrait 800x1200 with the barcode, turned a quarter clockwise into a 1200x800 GIF, as UPS prints.
    const [pw, ph] = [800, 1200];
    expect(code.width).toBeLessThan(pw - 20);
    const portrait = Buffer.alloc(pw * ph);
    for (let y = 0; y < code.height; y++) for (let x = 0; x < code.width; x++) portrait[(600 + y) * pw + 20 + x] = code.pixels[y * code.width + x] < 128 ? 1 : 0;
    const landscape = Buffer.alloc(pw * ph);
    for (let y = 0; y < ph; y++) for (let x = 0; x < pw; x++) landscape[x * ph + (ph - 1 - y)] = portrait[y * pw + x];
    const pdf = imageLabelPdf([decodeGif(encodeGif(ph, pw, Buffer.from([255, 255, 255, 0, 0, 0]), landscape))], 'Label 1ZA1B2C36512345678', '2026-11-24T12:00:00Z');
    expect((await readLabel(pdf))[0].view).toEqual([0, 0, 288, 432]);
    expect(scanCode128(await printPage(pdf, 1, 203))).toBe('1ZA1B2C36512345678');
  });
});
