/**
 * The shipping label: a 4x6 inch (288x432 pt) PDF, one page per package, with the Code 128 barcode
 * of the tracking number drawn by bwip-js.
 *
 * The PDF is written here rather than with pdfkit: pdfkit's Node build loads its font metrics from
 * its own package directory at run time (foliojs/pdfkit#1801), and its browser build, which takes
 * them in memory, bundles fontkit and a brotli dictionary for web fonts: 1.07 MB before any AWS
 * SDK, over the 1 MB bundle target of every function. A label needs little of a PDF library:
 * two standard fonts, lines and one image. Text uses Helvetica and Helvetica-Bold, two of the 14
 * fonts every PDF reader has, in WinAnsi encoding, which covers Spanish (ñ, á, ü, ¿) and the
 * rest of Latin-1; a character outside it prints as its base letter (ő -> o) or `?`. A line that
 * does not fit is set smaller, down to a floor, then cut with an ellipsis: nothing leaves the label.
 */
import { deflateSync } from 'node:zlib';
import { barcode, type Barcode } from './barcode';
import { argentineDay } from '#core/customs/regime-rules';
import widths from './helvetica-widths.json';

export interface LabelAddress {
  name: string;
  address1: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
}

export interface LabelInput {
  trackingNumber: string;
  carrier: string;
  service: string;
  orderNumber: string;
  shipmentId: number;
  /** ISO 8601 instant; the label shows its Argentine date. */
  createdAt: string;
  sender: LabelAddress;
  recipient: LabelAddress & { address2?: string | null; phone?: string | null };
  /** Weight in kg; length, width and height in cm. */
  packages: { weight: number; length: number; width: number; height: number }[];
}

/** 4 x 6 inches in PDF points (1/72 inch). */
export const labelSize = { width: 288, height: 432 } as const;

const MARGIN = 12;
const CONTENT_WIDTH = labelSize.width - 2 * MARGIN;

// ---------------------------------------------------------------------------------------------
// Text: WinAnsi encoding and Helvetica metrics

/** Unicode of the WinAnsi codes 0x80-0x9F that differ from Latin-1 (PDF 32000-1, Annex D). */
const winAnsiHigh: Record<number, number> = {
  0x20ac: 0x80, 0x201a: 0x82, 0x0192: 0x83, 0x201e: 0x84, 0x2026: 0x85, 0x2020: 0x86, 0x2021: 0x87,
  0x02c6: 0x88, 0x2030: 0x89, 0x0160: 0x8a, 0x2039: 0x8b, 0x0152: 0x8c, 0x017d: 0x8e, 0x2018: 0x91,
  0x2019: 0x92, 0x201c: 0x93, 0x201d: 0x94, 0x2022: 0x95, 0x2013: 0x96, 0x2014: 0x97, 0x02dc: 0x98,
  0x2122: 0x99, 0x0161: 0x9a, 0x203a: 0x9b, 0x0153: 0x9c, 0x017e: 0x9e, 0x0178: 0x9f,
};

/**
 * Advance widths (1/1000 em) of WinAnsi codes 32-255 (helvetica-widths.json), from Adobe's Core14
 * AFM files (the copies pdfkit ships); 0 for the five codes WinAnsi leaves undefined, which `encode` never produces.
 */
const fonts = {
  F1: { name: 'Helvetica', widths: widths.Helvetica },
  F2: { name: 'Helvetica-Bold', widths: widths['Helvetica-Bold'] },
} as const;

type FontId = keyof typeof fonts;

const ELLIPSIS = 0x85;
const QUESTION = 0x3f;

function winAnsiCode(cp: number): number | undefined {
  if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa1 && cp <= 0xff && cp !== 0xad)) return cp;
  if (cp === 0xa0) return 0x20;
  if (cp === 0xad) return 0x2d;
  return winAnsiHigh[cp];
}

/** `s` as WinAnsi codes: whitespace and control characters as one space, others as their base letter or `?`. */
function encodeWinAnsi(s: string): number[] {
  const codes: number[] = [];
  for (const ch of s.normalize('NFC').replace(/[\s\p{Cc}]+/gu, ' ').trim()) {
    const cp = ch.codePointAt(0)!;
    const code = winAnsiCode(cp) ?? winAnsiCode(ch.normalize('NFD').codePointAt(0)!);
    codes.push(code ?? QUESTION);
  }
  return codes;
}

function widthOf(codes: readonly number[], font: FontId, size: number): number {
  let units = 0;
  for (const c of codes) units += fonts[font].widths[c - 32];
  return (units * size) / 1000;
}

interface FittedText {
  codes: number[];
  size: number;
  /** The size asked for: a line set smaller keeps the baseline it would have had. */
  nominal: number;
}

/**
 * `text` set in at most `maxWidth` points: at `size` if it fits, else at the size that makes it
 * fit but not below `minSize`, and cut with an ellipsis if it is still too long there.
 */
function fitText(text: string, font: FontId, size: number, maxWidth: number, minSize = Math.min(size, 6)): FittedText {
  const codes = encodeWinAnsi(text);
  const width = widthOf(codes, font, size);
  if (width <= maxWidth) return { codes, size, nominal: size };
  const shrunk = Math.max(minSize, Math.floor(((size * maxWidth) / width) * 10) / 10);
  if (widthOf(codes, font, shrunk) <= maxWidth) return { codes, size: shrunk, nominal: size };
  const room = maxWidth - widthOf([ELLIPSIS], font, shrunk);
  let kept = 0;
  for (let used = 0; kept < codes.length; kept++) {
    used += widthOf([codes[kept]], font, shrunk);
    if (used > room) break;
  }
  return { codes: [...codes.slice(0, kept), ELLIPSIS], size: shrunk, nominal: size };
}

// ---------------------------------------------------------------------------------------------
// Page content

/** A content stream, with y measured down from the top of the label. */
class Page {
  readonly ops: string[] = [];

  /** Left-aligned at x, or right-aligned ending at x; `top` is the top of the line. */
  text(t: FittedText, font: FontId, x: number, top: number, align: 'left' | 'right' = 'left'): void {
    const left = align === 'right' ? x - widthOf(t.codes, font, t.size) : x;
    const baseline = labelSize.height - top - t.nominal * 0.75;
    const hex = t.codes.map((c) => c.toString(16).padStart(2, '0')).join('');
    this.ops.push(`BT /${font} ${num(t.size)} Tf ${num(left)} ${num(baseline)} Td <${hex}> Tj ET`);
  }

  rule(top: number, weight = 1): void {
    const y = labelSize.height - top;
    this.ops.push(`${num(weight)} w ${MARGIN} ${num(y)} m ${labelSize.width - MARGIN} ${num(y)} l S`);
  }

  image(name: string, x: number, top: number, width: number, height: number): void {
    this.ops.push(`q ${num(width)} 0 0 ${num(height)} ${num(x)} ${num(labelSize.height - top - height)} cm /${name} Do Q`);
  }
}

const num = (n: number) => String(Math.round(n * 100) / 100);

function field(page: Page, caption: string, value: string, x: number, top: number, width: number): void {
  page.text(fitText(caption, 'F2', 6.5, width), 'F2', x, top);
  page.text(fitText(value, 'F1', 10, width), 'F1', x, top + 8);
}

function amount(n: number, decimals: number): string {
  return String(Number(n.toFixed(decimals)));
}

function placeLine(a: LabelAddress): string {
  return [a.city, [a.state, a.postal_code].filter(Boolean).join(' ')].filter(Boolean).join(', ');
}

function drawPage(page: Page, input: LabelInput, index: number, code: Barcode): void {
  const pkg = input.packages[index];
  const half = CONTENT_WIDTH / 2;
  const right = labelSize.width - MARGIN;

  // Carrier, service, date, package n of m.
  page.text(fitText('PACKAGE', 'F2', 6.5, 90), 'F2', right, MARGIN, 'right');
  page.text(fitText(`${index + 1} / ${input.packages.length}`, 'F2', 18, 90), 'F2', right, MARGIN + 8, 'right');
  page.text(fitText(argentineDay(input.createdAt), 'F1', 9, 90), 'F1', right, MARGIN + 31, 'right');
  const leftWidth = CONTENT_WIDTH - 96;
  page.text(fitText(input.carrier.toUpperCase(), 'F2', 20, leftWidth, 10), 'F2', MARGIN, MARGIN);
  page.text(fitText(input.service.toUpperCase(), 'F2', 12, leftWidth, 7), 'F2', MARGIN, MARGIN + 24);
  page.rule(56, 1.5);

  // From.
  const s = input.sender;
  let y = 61;
  page.text(fitText('FROM', 'F2', 6.5, CONTENT_WIDTH), 'F2', MARGIN, y);
  y += 9;
  for (const [line, font] of [[s.name, 'F2'], [s.address1, 'F1'], [placeLine(s), 'F1'], [s.country, 'F1']] as const) {
    page.text(fitText(line, font, 8, CONTENT_WIDTH), font, MARGIN, y);
    y += 10;
  }
  page.rule(y + 2);

  // Ship to.
  const r = input.recipient;
  y += 7;
  page.text(fitText('SHIP TO', 'F2', 7, CONTENT_WIDTH), 'F2', MARGIN, y);
  y += 10;
  const lines: [text: string, font: FontId, size: number][] = [
    [r.name, 'F2', 15],
    [r.address1, 'F1', 12],
    [r.address2 ?? '', 'F1', 12],
    [placeLine(r), 'F1', 12],
    [r.country, 'F2', 12],
    [r.phone ? `Tel. ${r.phone}` : '', 'F1', 9],
  ];
  for (const [line, font, size] of lines.filter(([text]) => text.trim() !== '')) {
    page.text(fitText(line, font, size, CONTENT_WIDTH, 7), font, MARGIN, y);
    y += size + 3;
  }
  y = 232;
  page.rule(y, 1.5);

  // Order, shipment, this package.
  field(page, 'ORDER', input.orderNumber, MARGIN, y + 5, half - 6);
  field(page, 'SHIPMENT', String(input.shipmentId), MARGIN + half, y + 5, half);
  field(page, 'WEIGHT', `${amount(pkg.weight, 2)} kg`, MARGIN, y + 25, half - 6);
  field(page, 'DIMENSIONS', `${amount(pkg.length, 1)} × ${amount(pkg.width, 1)} × ${amount(pkg.height, 1)} cm`, MARGIN + half, y + 25, half);
  page.rule(y + 45);

  // Tracking number and its barcode.
  page.text(fitText('TRACKING', 'F2', 6.5, CONTENT_WIDTH), 'F2', MARGIN, y + 50);
  page.text(fitText(input.trackingNumber, 'F2', 12, CONTENT_WIDTH, 7), 'F2', MARGIN, y + 58);
  const top = y + 74;
  const room = labelSize.height - MARGIN - top;
  page.image('Im1', (labelSize.width - code.drawWidth) / 2, top + Math.max(0, (room - code.drawHeight) / 2), code.drawWidth, code.drawHeight);
}

// ---------------------------------------------------------------------------------------------
// The PDF file

/** PDF objects in order; object n is `objects[n - 1]`. */
class PdfFile {
  private readonly objects: Buffer[] = [];

  add(body: string | Buffer): number {
    this.objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
    return this.objects.length;
  }

  /** Reserves an object number for a body added later with `set` (the page tree, before its pages). */
  reserve(): number {
    return this.add('null');
  }

  set(ref: number, body: string): void {
    this.objects[ref - 1] = Buffer.from(body, 'latin1');
  }

  stream(dict: string, data: Buffer): number {
    const compressed = deflateSync(data);
    return this.add(Buffer.concat([Buffer.from(`<< ${dict} /Filter /FlateDecode /Length ${compressed.length} >>\nstream\n`, 'latin1'), compressed, Buffer.from('\nendstream', 'latin1')]));
  }

  toBuffer(root: number, info: number): Buffer {
    const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
    let length = parts[0].length;
    const offsets: number[] = [];
    this.objects.forEach((body, i) => {
      offsets.push(length);
      const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
      parts.push(obj);
      length += obj.length;
    });
    const xref = [`xref\n0 ${this.objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
    parts.push(Buffer.from(`${xref}trailer\n<< /Size ${this.objects.length + 1} /Root ${root} 0 R /Info ${info} 0 R >>\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
    return Buffer.concat(parts);
  }
}

/** A PDF text string: printable ASCII as is, the rest escaped. */
function pdfString(s: string): string {
  return `(${Buffer.from(encodeWinAnsi(s)).toString('latin1').replace(/[\\()]/g, '\\$&').replace(/[^\x20-\x7e]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`)})`;
}

function pdfDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new RangeError(`createdAt is not a date: ${iso}`);
  return `D:${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

/** The label of a shipment as a PDF: one 4x6 page per package, each with the tracking barcode. */
export async function renderLabel(input: LabelInput): Promise<Buffer> {
  if (input.packages.length === 0) throw new RangeError('a label needs at least one package');
  const code = await barcode(input.trackingNumber, CONTENT_WIDTH);
  const pdf = new PdfFile();
  const pages = pdf.reserve();
  const fontRefs = Object.entries(fonts).map(([id, f]) => `/${id} ${pdf.add(`<< /Type /Font /Subtype /Type1 /BaseFont /${f.name} /Encoding /WinAnsiEncoding >>`)} 0 R`);
  const image = pdf.stream(`/Type /XObject /Subtype /Image /Width ${code.width} /Height ${code.height} /ColorSpace /DeviceGray /BitsPerComponent 8`, code.pixels);
  const resources = `<< /Font << ${fontRefs.join(' ')} >> /XObject << /Im1 ${image} 0 R >> >>`;
  const kids = input.packages.map((_, i) => {
    const page = new Page();
    drawPage(page, input, i, code);
    const contents = pdf.stream('', Buffer.from(page.ops.join('\n'), 'latin1'));
    return pdf.add(`<< /Type /Page /Parent ${pages} 0 R /MediaBox [0 0 ${labelSize.width} ${labelSize.height}] /Resources ${resources} /Contents ${contents} 0 R >>`);
  });
  pdf.set(pages, `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`);
  const root = pdf.add(`<< /Type /Catalog /Pages ${pages} 0 R >>`);
  const info = pdf.add(`<< /Title ${pdfString(`Label ${input.trackingNumber}`)} /Producer (Despacho) /CreationDate (${pdfDate(input.createdAt)}) >>`);
  return pdf.toBuffer(root, info);
}

// ---------------------------------------------------------------------------------------------
// A carrier's label images on 4x6 pages

/** A palette image (a GIF's frame): `indices` one byte per pixel, rows top to bottom; `palette` RGB triples. */
export interface PaletteImage {
  width: number;
  height: number;
  palette: Buffer;
  indices: Buffer;
}

/**
 * A PDF of a carrier's label images (UPS prints GIFs), one 4x6 page each: the image fills the page
 * keeping its proportions, turned a quarter when it is landscape (UPS's 6x4 GIF) so it prints on
 * the same 4x6 stock as every other label.
 */
export function imageLabelPdf(images: PaletteImage[], title: string, createdAt: string): Buffer {
  if (images.length === 0) throw new RangeError('a label needs at least one image');
  const pdf = new PdfFile();
  const pages = pdf.reserve();
  const kids = images.map((img, i) => {
    const colors = img.palette.length / 3;
    if (!Number.isInteger(colors) || colors < 1 || colors > 256) throw new RangeError(`label image ${i + 1}: a palette of ${img.palette.length} bytes`);
    if (img.indices.length !== img.width * img.height) throw new RangeError(`label image ${i + 1}: ${img.indices.length} pixels for ${img.width}x${img.height}`);
    const image = pdf.stream(`/Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height} /ColorSpace [/Indexed /DeviceRGB ${colors - 1} <${img.palette.toString('hex')}>] /BitsPerComponent 8`, img.indices);
    const turn = img.width > img.height;
    const [w, h] = turn ? [img.height, img.width] : [img.width, img.height];
    const scale = Math.min(labelSize.width / w, labelSize.height / h);
    const [dw, dh] = [w * scale, h * scale];
    const x = (labelSize.width - dw) / 2;
    const y = (labelSize.height - dh) / 2;
    // Turned: the image's width runs up the page (a quarter turn counter-clockwise).
    const cm = turn ? `0 ${fmt(dh)} ${fmt(-dw)} 0 ${fmt(x + dw)} ${fmt(y)} cm` : `${fmt(dw)} 0 0 ${fmt(dh)} ${fmt(x)} ${fmt(y)} cm`;
    const contents = pdf.stream('', Buffer.from(`q ${cm} /Im1 Do Q`, 'latin1'));
    return pdf.add(`<< /Type /Page /Parent ${pages} 0 R /MediaBox [0 0 ${labelSize.width} ${labelSize.height}] /Resources << /XObject << /Im1 ${image} 0 R >> >> /Contents ${contents} 0 R >>`);
  });
  pdf.set(pages, `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`);
  const root = pdf.add(`<< /Type /Catalog /Pages ${pages} 0 R >>`);
  const info = pdf.add(`<< /Title ${pdfString(title)} /Producer (Despacho) /CreationDate (${pdfDate(createdAt)}) >>`);
  return pdf.toBuffer(root, info);
}

const fmt = (n: number) => (Math.round(n * 1000) / 1000).toString();
