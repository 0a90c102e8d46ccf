import { beforeAll, describe, expect, it } from 'vitest';
import { renderLabel, type LabelInput } from '#infra/label-pdf';
import { printPage, readLabel, scanCode128, type LabelPage } from '#support/labels/label-reading';
import { sampleLabel } from '#support/labels/sample-label';

const texts = (page: LabelPage) => page.text.map((t) => t.str);

describe('a shipping label', () => {
  let pdf: Buffer;
  let pages: LabelPage[];

  beforeAll(async () => {
    pdf = await renderLabel(sampleLabel);
    pages = await readLabel(pdf);
  });

  it('is a PDF file with one 4x6 inch page (288 x 432 pt) per package', () => {
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pages.map((p) => p.view)).toEqual([
      [0, 0, 288, 432],
      [0, 0, 288, 432],
    ]);
  });

  it("prints the recipient's name, address and phone with their Spanish letters", () => {
    expect(texts(pages[0])).toEqual(
      expect.arrayContaining([
        'José María Muñoz Ávila',
        'Calle Güemes 567, Piso 3º B',
        'Barrio Parque Señorial',
        'San Carlos de Bariloche, Río Negro R8400',
        'Tel. +54 9 294 555-1234',
      ]),
    );
  });

  it('prints the sender, carrier, service, date, order number, shipment id and tracking number', () => {
    expect(texts(pages[0])).toEqual(
      expect.arrayContaining(['Tienda Ñandú S.A.', 'Av. Corrientes 1234', 'CABA, Buenos Aires C1043', 'DESPACHO', 'EXPRESS', '2026-03-14', '#1001', '42', 'DSP00000000422']),
    );
  });

  it("numbers each page as its package, with that package's weight in kg and dimensions in cm", () => {
    expect(texts(pages[0])).toEqual(expect.arrayContaining(['1 / 2', '1.25 kg', '30 × 20 × 10 cm']));
    expect(texts(pages[1])).toEqual(expect.arrayContaining(['2 / 2', '0.5 kg', '15.5 × 10 × 5 cm']));
  });

  it('carries a Code 128 barcode image that decodes to the tracking number', () => {
    expect(pages[0].images).toHaveLength(1);
    expect(scanCode128(pages[0].images[0])).toBe('DSP00000000422');
  });

  it('scans from every page printed at 203 dpi, a thermal label printer', async () => {
    for (const n of [1, 2]) {
      expect(scanCode128(await printPage(pdf, n, 203))).toBe('DSP00000000422');
    }
  });
});

describe('a shipping label with text that does not fit', () => {
  const long = 'Barrio Parque Señorial, frente a la plaza San Martín de los Andes, casa de rejas verdes y portón de madera';
  let page: LabelPage;

  beforeAll(async () => {
    const input: LabelInput = {
      ...sampleLabel,
      carrier: 'despacho-logistica-integral-del-sur',
      orderNumber: 'ML-2000009876543210-ARGENTINA-MERCADOLIBRE-ORDER',
      sender: { ...sampleLabel.sender, name: 'Distribuidora de Artículos Electrónicos y Electrodomésticos del Noroeste Argentino S.R.L.' },
      recipient: { ...sampleLabel.recipient, name: 'María de los Ángeles Fernández de la Peña y Zúñiga Echeverría', address2: long },
    };
    [page] = await readLabel(await renderLabel(input));
  });

  it('keeps every line inside the margins of the label', () => {
    for (const run of page.text) {
      expect(run.x, run.str).toBeGreaterThanOrEqual(12 - 0.01);
      expect(run.x + run.width, run.str).toBeLessThanOrEqual(288 - 12 + 0.01);
    }
  });

  it('cuts a line that is too long even when set smaller, and marks the cut with an ellipsis', () => {
    const address2 = texts(page).find((s) => s.startsWith('Barrio Parque Señorial'));
    expect(address2).toMatch(/…$/);
    expect(long.startsWith(address2!.slice(0, -1))).toBe(true);
  });

  it('sets a long name smaller rather than cutting it when it fits at the smaller size', () => {
    expect(texts(page)).toContain('María de los Ángeles Fernández de la Peña y Zúñiga Echeverría');
  });
});

describe('label text outside the standard fonts', () => {
  it('prints letters WinAnsi lacks as their base letter, and others as a question mark', async () => {
    const [page] = await readLabel(await renderLabel({ ...sampleLabel, recipient: { ...sampleLabel.recipient, name: 'Kőszegi Łucja' } }));
    expect(texts(page)).toContain('Koszegi ?ucja');
  });
});

describe('labels of other tracking numbers', () => {
  it('draw the barcode of a longer number of another carrier, which scans at 203 dpi', async () => {
    const pdf = await renderLabel({ ...sampleLabel, trackingNumber: '1Z999AA10123456784', carrier: 'ups', packages: [sampleLabel.packages[0]] });
    expect(scanCode128(await printPage(pdf, 1, 203))).toBe('1Z999AA10123456784');
  });

  it('are refused without a package', async () => {
    await expect(renderLabel({ ...sampleLabel, packages: [] })).rejects.toThrow(RangeError);
  });
});
