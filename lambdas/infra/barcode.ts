/**
 * The Code 128 barcode of a shipping label (lambdas/infra/label-pdf.ts), drawn by bwip-js. A
 * module of its own so that bwip-js (about 125 KB) is only in the bundles that draw a label: the
 * functions that only read a carrier's label images (a UPS GIF) or answer rates do not carry it.
 */
import { inflateSync } from 'node:zlib';
import { code128 } from 'bwip-js/node';

/**
 * The barcode: at least 10 module widths of quiet zone each side (ISO/IEC 15417), a module
 * between 10 mil (0.254 mm, what any scanner reads) and 0.64 mm, bars an inch tall, and the image
 * at 300 dpi or more at its printed size.
 */
const barcodeSpec = { quietModules: 10, minModulePt: 0.72, maxModulePt: 1.8, barHeightPt: 72, textPt: 11, minDpi: 300 } as const;

export interface GrayImage {
  width: number;
  height: number;
  /** One byte per pixel, rows top to bottom. */
  pixels: Buffer;
}

/**
 * The pixels of a bwip-js PNG as gray over white. bwip-js writes one kind of PNG: 8-bit RGBA,
 * not interlaced, every row unfiltered; anything else is refused rather than misread.
 */
export function bwipPngToGray(png: Buffer): GrayImage {
  let offset = 8;
  let header: Buffer | undefined;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') header = data;
    else if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  if (!header || header[8] !== 8 || header[9] !== 6 || header[12] !== 0) throw new Error('unexpected PNG from bwip-js: not 8-bit RGBA, or interlaced');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const raw = inflateSync(Buffer.concat(idat));
  const pixels = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 4 + 1);
    if (raw[row] !== 0) throw new Error(`unexpected PNG from bwip-js: row filter ${raw[row]}`);
    for (let x = 0; x < width; x++) {
      const p = row + 1 + x * 4;
      const gray = (299 * raw[p] + 587 * raw[p + 1] + 114 * raw[p + 2]) / 1000;
      const alpha = raw[p + 3];
      pixels[y * width + x] = Math.round((gray * alpha + 255 * (255 - alpha)) / 255);
    }
  }
  return { width, height, pixels };
}

export interface Barcode extends GrayImage {
  /** Printed size in points. */
  drawWidth: number;
  drawHeight: number;
}

/**
 * The Code 128 barcode of `text`, with its human-readable line, sized to `maxWidth` points with
 * its quiet zones. A first, 1-pixel-per-module rendering counts the modules; the second is drawn
 * at the module size that fits and enough pixels per module for `barcodeSpec.minDpi`.
 */
export async function barcode(text: string, maxWidth: number): Promise<Barcode> {
  const probe = await code128({ bcid: 'code128', text, scale: 1, height: 1 });
  const modules = probe.readUInt32BE(16) + 2 * barcodeSpec.quietModules;
  const modulePt = Math.min(barcodeSpec.maxModulePt, maxWidth / modules);
  if (modulePt < barcodeSpec.minModulePt) throw new RangeError(`tracking number too long for a scannable barcode on the label: ${text}`);
  const scale = Math.ceil((barcodeSpec.minDpi / 72) * modulePt);
  const png = await code128({
    bcid: 'code128',
    text,
    scale,
    // bwip-js sizes are in units of one module (before `scale`); the bar height is in millimetres of them.
    height: barcodeSpec.barHeightPt / modulePt / (72 / 25.4),
    includetext: true,
    textxalign: 'center',
    textsize: barcodeSpec.textPt / modulePt,
    paddingwidth: barcodeSpec.quietModules,
    backgroundcolor: 'FFFFFF',
  });
  const image = bwipPngToGray(png);
  const ptPerPixel = modulePt / scale;
  return { ...image, drawWidth: image.width * ptPerPixel, drawHeight: image.height * ptPerPixel };
}
