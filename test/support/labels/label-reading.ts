/**
 * Reads a label back the way a printer and a scanner would: the PDF parsed by pdf.js (pages, text,
 * embedded images, and a page rasterized at a printer's resolution) and barcodes decoded by ZXing.
 */
import { createCanvas } from '@napi-rs/canvas';
import { BinaryBitmap, Code128Reader, DecodeHintType, HybridBinarizer, RGBLuminanceSource } from '@zxing/library';
import { getDocument, ImageKind, OPS, type PDFDocumentProxy, type PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api';

export interface GrayImage {
  width: number;
  height: number;
  /** One luminance byte per pixel, rows top to bottom. */
  pixels: Uint8ClampedArray;
}

export interface TextRun {
  str: string;
  /** Left edge and width in points, from pdf.js's own metrics of the standard fonts. */
  x: number;
  width: number;
}

export interface LabelPage {
  /** [x0, y0, x1, y1] of the MediaBox, in points. */
  view: number[];
  text: TextRun[];
  images: GrayImage[];
}

export async function openPdf(pdf: Buffer): Promise<PDFDocumentProxy> {
  return getDocument({ data: new Uint8Array(pdf), verbosity: 0, isOffscreenCanvasSupported: false, isImageDecoderSupported: false }).promise;
}

export async function readLabel(pdf: Buffer): Promise<LabelPage[]> {
  const doc = await openPdf(pdf);
  try {
    const pages: LabelPage[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const text = content.items
        .filter((item): item is TextItem => 'str' in item && item.str.trim() !== '')
        .map((item) => ({ str: item.str, x: item.transform[4], width: item.width }));
      pages.push({ view: page.view, text, images: await imagesOf(page) });
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

async function imagesOf(page: PDFPageProxy): Promise<GrayImage[]> {
  const ops = await page.getOperatorList();
  const names = ops.fnArray.flatMap((fn, i) => (fn === OPS.paintImageXObject ? [ops.argsArray[i][0] as string] : []));
  return Promise.all(
    names.map(
      (name) =>
        new Promise<GrayImage>((resolve) => {
          const objs = name.startsWith('g_') ? page.commonObjs : page.objs;
          objs.get(name, (img: { width: number; height: number; kind: number; data: Uint8ClampedArray }) => resolve(toGray(img)));
        }),
    ),
  );
}

function toGray(img: { width: number; height: number; kind: number; data: Uint8ClampedArray }): GrayImage {
  const count = img.width * img.height;
  const pixels = new Uint8ClampedArray(count);
  if (img.kind === ImageKind.GRAYSCALE_1BPP) {
    const rowBytes = Math.ceil(img.width / 8);
    for (let y = 0; y < img.height; y++) {
      for (let x = 0; x < img.width; x++) pixels[y * img.width + x] = (img.data[y * rowBytes + (x >> 3)] >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
    return { width: img.width, height: img.height, pixels };
  }
  const channels = img.kind === ImageKind.RGBA_32BPP ? 4 : 3;
  for (let i = 0; i < count; i++) {
    const p = i * channels;
    pixels[i] = (299 * img.data[p] + 587 * img.data[p + 1] + 114 * img.data[p + 2]) / 1000;
  }
  return { width: img.width, height: img.height, pixels };
}

/** The browser canvas pdf.js expects; @napi-rs/canvas implements the part it uses. */
type PageCanvas = Parameters<PDFPageProxy['render']>[0]['canvas'];

/** Page `n` (from 1) rasterized at `dpi`, as a printer of that resolution would put it on paper. */
export async function printPage(pdf: Buffer, n: number, dpi: number): Promise<GrayImage> {
  const doc = await openPdf(pdf);
  try {
    const page = await doc.getPage(n);
    const viewport = page.getViewport({ scale: dpi / 72 });
    const canvas = createCanvas(Math.round(viewport.width), Math.round(viewport.height));
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    await page.render({ canvas: canvas as unknown as PageCanvas, viewport }).promise;
    const rgba = context.getImageData(0, 0, canvas.width, canvas.height).data;
    return toGray({ width: canvas.width, height: canvas.height, kind: ImageKind.RGBA_32BPP, data: new Uint8ClampedArray(rgba) });
  } finally {
    await doc.destroy();
  }
}

/** The text of the Code 128 barcode ZXing finds in `image`; throws (NotFoundException) when it finds none. */
export function scanCode128(image: GrayImage): string {
  const bitmap = new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(image.pixels, image.width, image.height)));
  const hints = new Map<DecodeHintType, unknown>([[DecodeHintType.TRY_HARDER, true]]);
  return new Code128Reader().decode(bitmap, hints).getText();
}
