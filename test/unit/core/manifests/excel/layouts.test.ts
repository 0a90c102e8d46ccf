import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { jsonFieldNameOf, normalizeHeader, rowsToSubmission } from '#core/manifests/excel/convert';
import { layoutFrom } from '#core/manifests/excel/layout';
import { excelSlugs, layoutFor, type ExcelSlug } from '#core/manifests/excel/slugs';
import { ManifestItem, ManifestSubmission } from '#core/manifests/submission';
import { readSheetRows } from '#infra/spreadsheet';
import { fieldErrors } from '#http/kit/validate';
import { workbook, type SheetRows } from '#support/workbooks';

const form = { mawbNumber: '176-12345675', airline: 'Aerolíneas Argentinas', flightNumber: 'AR1303', originAirport: 'MIA' };

/** The whole path of an Excel upload after multipart: worker parse, layout conversion, schema. */
async function convertWorkbook(slug: ExcelSlug, bytes: Buffer) {
  const input = rowsToSubmission(layoutFor(slug)!, await readSheetRows(bytes), form);
  const res = v.safeParse(ManifestSubmission, input, { abortPipeEarly: true });
  if (!res.success) throw new Error(`schema refused the ${slug} conversion: ${JSON.stringify(fieldErrors(res.issues))}`);
  return res.output;
}

const bfeSheet: SheetRows = [
  ['Guía Hija', 'Guía Courier', 'Remitente', 'Destinatario', 'Tipo Doc.', 'Nro. Doc.', 'Domicilio', 'Localidad', 'Provincia', 'CP', 'Teléfono', 'Email', 'Descripción', 'Posición Arancelaria', 'Cant. Bultos', 'Cant. Unidades', 'Peso Kg', 'Valor FOB USD', 'País Origen'],
  ['BFE0001', 'TRK-9001', 'Shenzhen Trading Co.', 'Ana Pérez', 'cuit', '20-12345678-6', 'Av. Corrientes 1234', 'CABA', 'Ciudad Autónoma de Buenos Aires', 1043, '+54 11 5555-0000', 'ana@example.com', 'Auriculares inalámbricos', '8518.30.00', 1, 2, 0.45, 39.9, 'cn'],
  ['BFE0002', null, 'Gadgets Inc', 'Juan Gómez', 'DNI', 30111222, 'Mitre 55', 'Rosario', 'Santa Fe', '2000', null, null, 'Funda de celular', null, 1, 1, 0.1, 5, 'US'],
];
const bfeItems = [
  {
    awbNumber: 'BFE0001', trackingNumber: 'TRK-9001', shipperName: 'Shenzhen Trading Co.', consigneeName: 'Ana Pérez', consigneeIdType: 'CUIT', consigneeIdNumber: '20123456786',
    consigneeAddress: 'Av. Corrientes 1234', consigneeCity: 'CABA', consigneeProvince: 'Ciudad Autónoma de Buenos Aires', consigneePostalCode: '1043',
    consigneePhoneNumber: '+54 11 5555-0000', consigneeEmail: 'ana@example.com', itemDescription: 'Auriculares inalámbricos', hsCode: '8518.30.00',
    amountOfPackages: 1, amountOfItems: 2, totalWeightKg: 0.45, fobValueUsd: 39.9, originCountry: 'CN',
  },
  {
    awbNumber: 'BFE0002', shipperName: 'Gadgets Inc', consigneeName: 'Juan Gómez', consigneeIdType: 'DNI', consigneeIdNumber: '30111222', consigneeAddress: 'Mitre 55',
    consigneeCity: 'Rosario', consigneeProvince: 'Santa Fe', consigneePostalCode: '2000', itemDescription: 'Funda de celular',
    amountOfPackages: 1, amountOfItems: 1, totalWeightKg: 0.1, fobValueUsd: 5, originCountry: 'US',
  },
];

const cases: { slug: ExcelSlug; what: string; sheet: SheetRows; items: Record<string, unknown>[] }[] = [
  { slug: 'bfe', what: 'Spanish headers on row 1, formatted CUIT', sheet: bfeSheet, items: bfeItems },
  {
    slug: 'golucky',
    what: 'a title block above the header, unit price times quantity',
    sheet: [
      ['GOLUCKY EXPRESS CO., LTD. - CUSTOMS MANIFEST'],
      ['Date: 2026-11-20', null, 'Flight: CA 909'],
      [],
      ['No.', 'Waybill No.', 'Reference No.', 'Shipper', 'Store Name', 'Receiver Name', 'Receiver ID No.', 'Receiver Address', 'Receiver City', 'Receiver Province', 'Receiver Zip Code', 'Receiver Tel', 'Receiver Email', 'Goods Name (EN)', 'HS Code', 'Qty', 'Unit Price (USD)', 'G.W. (kg)', 'Origin', 'Product URL'],
      [1, 'GL2026110001', 'REF-1', 'Yiwu Toys Ltd', 'Lucky Store', 'María López', '27234567890', 'Belgrano 742', 'La Plata', 'Buenos Aires', 'B1900', '221 555 0101', 'maria@example.com', 'Plush toy', '9503.00', 3, 4.99, 0.6, 'CN', 'https://shop.example/p/1'],
      [2, 'GL2026110002', 'REF-2', 'Yiwu Toys Ltd', 'Lucky Store', 'Diego Sosa', null, 'Sarmiento 10', 'Salta', 'Salta', 'A4400', null, null, 'Toy car', '9503.00', null, 12, 0.3, 'CN', null],
    ],
    items: [
      {
        trackingNumber: 'GL2026110001', itemIdempotencyKey: 'REF-1', shipperName: 'Yiwu Toys Ltd', customerName: 'Lucky Store', consigneeName: 'María López', consigneeIdNumber: '27234567890',
        consigneeAddress: 'Belgrano 742', consigneeCity: 'La Plata', consigneeProvince: 'Buenos Aires', consigneePostalCode: 'B1900', consigneePhoneNumber: '221 555 0101',
        consigneeEmail: 'maria@example.com', itemName: 'Plush toy', hsCode: '9503.00', amountOfItems: 3, fobValueUsd: 14.97, totalWeightKg: 0.6, originCountry: 'CN',
        productLink: 'https://shop.example/p/1',
      },
      {
        trackingNumber: 'GL2026110002', itemIdempotencyKey: 'REF-2', shipperName: 'Yiwu Toys Ltd', customerName: 'Lucky Store', consigneeName: 'Diego Sosa',
        consigneeAddress: 'Sarmiento 10', consigneeCity: 'Salta', consigneeProvince: 'Salta', consigneePostalCode: 'A4400', itemName: 'Toy car', hsCode: '9503.00',
        fobValueUsd: 12, totalWeightKg: 0.3, originCountry: 'CN',
      },
    ],
  },
  {
    slug: '360lion',
    what: 'weights in grams, bag numbers, tracking number without air waybill',
    sheet: [
      ['Bag No.', 'HAWB No.', 'Tracking No.', 'Sender', 'Sender E-mail', 'Consignee', 'ID Type', 'Consignee ID', 'Address', 'City', 'State/Province', 'Postcode', 'Tel', 'E-mail', 'Goods Description', 'Category', 'Pcs', 'Weight (g)', 'Vol. Weight (g)', 'Declared Value (USD)', 'Country of Origin', 'Image URL'],
      ['BAG-07', null, 'LP00123456789', 'Lion Seller', 'seller@lion.example', 'Carlos Díaz', 'dni', '28.765.432', 'Colón 300', 'Córdoba', 'Córdoba', 'X5000', '351 555 0000', 'carlos@example.com', 'Phone case', 'Electronics accessories', 1, 1250, 1800, 12, 'hk', 'https://img.example/1.jpg'],
    ],
    items: [
      {
        boxNumber: 'BAG-07', trackingNumber: 'LP00123456789', shipperName: 'Lion Seller', shipperEmail: 'seller@lion.example', consigneeName: 'Carlos Díaz', consigneeIdType: 'DNI',
        consigneeIdNumber: '28765432', consigneeAddress: 'Colón 300', consigneeCity: 'Córdoba', consigneeProvince: 'Córdoba', consigneePostalCode: 'X5000',
        consigneePhoneNumber: '351 555 0000', consigneeEmail: 'carlos@example.com', itemDescription: 'Phone case', Category: 'Electronics accessories', amountOfPackages: 1,
        totalWeightKg: 1.25, totalVolumetricWeightKg: 1.8, fobValueUsd: 12, originCountry: 'HK', imageLink: 'https://img.example/1.jpg',
      },
    ],
  },
  {
    slug: 'n24',
    what: 'a title block, amounts typed as text with a decimal comma, hyphenated CUIL',
    sheet: [
      ['N24 LOGÍSTICA S.A.'],
      ['MANIFIESTO DE IMPORTACIÓN COURIER'],
      ['Vuelo AR1303 - 20/11/2026'],
      [],
      ['Nro. Envío', 'Guía Aérea', 'Clave Ítem', 'Apellido y Nombre', 'Tipo Doc.', 'CUIT / CUIL / DNI', 'Calle y Número', 'Ciudad', 'Provincia', 'CP', 'Celular', 'Correo Electrónico', 'Producto', 'Detalle', 'NCM', 'Cantidad', 'Bultos', 'Peso Neto (Kg)', 'Peso Volumétrico (Kg)', 'Importe FOB (U$S)', 'Origen', 'Remitente'],
      ['N24-000981', 'N24-HAWB-1', 'N24-000981-1', 'Fernández, Lucía', 'CUIL', '27-31234567-4', 'San Martín 1500', 'Mendoza', 'Mendoza', 'M5500', '+54 9 261 555 1234', 'lucia@example.com', 'Zapatillas', 'Zapatillas de running talle 38', '6404.11.00', 1, 1, '0,85', '1,2', '1.234,50', 'BR', 'Tienda BR Ltda'],
    ],
    items: [
      {
        trackingNumber: 'N24-000981', awbNumber: 'N24-HAWB-1', itemIdempotencyKey: 'N24-000981-1', consigneeName: 'Fernández, Lucía', consigneeIdType: 'CUIL', consigneeIdNumber: '27312345674',
        consigneeAddress: 'San Martín 1500', consigneeCity: 'Mendoza', consigneeProvince: 'Mendoza', consigneePostalCode: 'M5500', consigneePhoneNumber: '+54 9 261 555 1234',
        consigneeEmail: 'lucia@example.com', itemName: 'Zapatillas', itemDescription: 'Zapatillas de running talle 38', hsCode: '6404.11.00', amountOfItems: 1, amountOfPackages: 1,
        totalWeightKg: 0.85, totalVolumetricWeightKg: 1.2, fobValueUsd: 1234.5, originCountry: 'BR', shipperName: 'Tienda BR Ltda',
      },
    ],
  },
  {
    slug: 'nohs',
    what: 'no tariff code column, province left to the default',
    sheet: [
      ['AWB', 'Store', 'Name', 'Document Type', 'Document', 'Street', 'City', 'State', 'ZIP', 'Phone', 'Email', 'Item', 'Description', 'Category', 'Link', 'Image', 'Items', 'Packages', 'Value USD', 'Weight KG', 'Origin Country'],
      ['NH100200300', 'Gadget Store', 'Pedro Ruiz', null, null, 'Lavalle 900', 'Buenos Aires', null, 'C1047', null, 'pedro@example.com', 'Smart watch', 'Smart watch with heart-rate monitor, silicone strap', 'Electronics', 'https://store.example/watch', 'https://img.example/watch.png', 1, 1, 59, 0.25, 'cn'],
    ],
    items: [
      {
        awbNumber: 'NH100200300', customerName: 'Gadget Store', consigneeName: 'Pedro Ruiz', consigneeAddress: 'Lavalle 900', consigneeCity: 'Buenos Aires', consigneeProvince: 'Buenos Aires',
        consigneePostalCode: 'C1047', consigneeEmail: 'pedro@example.com', itemName: 'Smart watch', itemDescription: 'Smart watch with heart-rate monitor, silicone strap', Category: 'Electronics',
        productLink: 'https://store.example/watch', imageLink: 'https://img.example/watch.png', amountOfItems: 1, amountOfPackages: 1, fobValueUsd: 59, totalWeightKg: 0.25, originCountry: 'CN',
      },
    ],
  },
  {
    slug: 'mercadolibre',
    what: 'a note row above the header, sale number as a number cell, unit price times units',
    sheet: [
      ['Ventas con envío internacional - exportado el 20/11/2026'],
      ['# de venta', 'Número de seguimiento', 'Guía aérea', 'Título de la publicación', 'Categoría', 'Link de la publicación', 'Unidades', 'Precio unitario (US$)', 'Peso (kg)', 'País de origen', 'Vendedor', 'Tienda oficial', 'Comprador', 'Tipo de documento', 'Documento del comprador', 'Domicilio de entrega', 'Ciudad', 'Provincia', 'Código postal', 'Teléfono del comprador', 'E-mail del comprador'],
      [2000012345678, 'MEL41234567890', null, 'Zapatillas Running Hombre', 'Calzado', 'https://articulo.mercadolibre.com.ar/MLA-123', 2, 19.99, 0.9, 'US', 'US Seller LLC', null, 'Sofía Martínez', 'DNI', 33444555, 'Rivadavia 5000', 'Quilmes', 'Buenos Aires', 'B1878', '11 5555 1111', 'sofia@example.com'],
    ],
    items: [
      {
        itemIdempotencyKey: '2000012345678', trackingNumber: 'MEL41234567890', itemName: 'Zapatillas Running Hombre', Category: 'Calzado', productLink: 'https://articulo.mercadolibre.com.ar/MLA-123',
        amountOfItems: 2, fobValueUsd: 39.98, totalWeightKg: 0.9, originCountry: 'US', shipperName: 'US Seller LLC', consigneeName: 'Sofía Martínez', consigneeIdType: 'DNI',
        consigneeIdNumber: '33444555', consigneeAddress: 'Rivadavia 5000', consigneeCity: 'Quilmes', consigneeProvince: 'Buenos Aires', consigneePostalCode: 'B1878',
        consigneePhoneNumber: '11 5555 1111', consigneeEmail: 'sofia@example.com',
      },
    ],
  },
  {
    slug: 'mailamericas',
    what: 'first and last name in two columns',
    sheet: [
      ['Tracking', 'Reference', 'Bag', 'Recipient First Name', 'Recipient Last Name', 'Tax ID Type', 'Tax ID', 'Address Line 1', 'City', 'State', 'Zip Code', 'Phone', 'Email', 'Content', 'HS Code', 'Quantity', 'Declared Value USD', 'Weight KG', 'Origin', 'Sender', 'Sender Email'],
      ['MA123456789AR', 'ORD-1', 'BAG-1', 'Valentina', 'García', 'CUIT', '30-71234567-1', 'Alem 1', 'Bahía Blanca', 'Buenos Aires', 'B8000', '291 555 2222', 'vale@example.com', 'Bluetooth speaker', '8518.22.00', 1, 25, 0.7, 'CN', 'Speaker Co', 'sales@speaker.example'],
      ['MA123456790AR', 'ORD-2', 'BAG-1', 'Lucas', null, null, null, 'Alem 2', 'Bahía Blanca', 'Buenos Aires', 'B8000', null, null, 'Charger', null, 2, 8, 0.2, 'CN', 'Speaker Co', null],
    ],
    items: [
      {
        trackingNumber: 'MA123456789AR', itemIdempotencyKey: 'ORD-1', boxNumber: 'BAG-1', consigneeName: 'Valentina García', consigneeIdType: 'CUIT', consigneeIdNumber: '30712345671',
        consigneeAddress: 'Alem 1', consigneeCity: 'Bahía Blanca', consigneeProvince: 'Buenos Aires', consigneePostalCode: 'B8000', consigneePhoneNumber: '291 555 2222',
        consigneeEmail: 'vale@example.com', itemDescription: 'Bluetooth speaker', hsCode: '8518.22.00', amountOfItems: 1, fobValueUsd: 25, totalWeightKg: 0.7, originCountry: 'CN',
        shipperName: 'Speaker Co', shipperEmail: 'sales@speaker.example',
      },
      {
        trackingNumber: 'MA123456790AR', itemIdempotencyKey: 'ORD-2', boxNumber: 'BAG-1', consigneeName: 'Lucas', consigneeAddress: 'Alem 2', consigneeCity: 'Bahía Blanca',
        consigneeProvince: 'Buenos Aires', consigneePostalCode: 'B8000', itemDescription: 'Charger', amountOfItems: 2, fobValueUsd: 8, totalWeightKg: 0.2, originCountry: 'CN',
        shipperName: 'Speaker Co',
      },
    ],
  },
];

describe('Excel layouts, one per slug', () => {
  it('covers every Excel slug with one test workbook', () => {
    expect(cases.map((c) => c.slug).sort()).toEqual([...excelSlugs].sort());
  });

  for (const c of cases) {
    it(`converts a ${c.slug} workbook (${c.what}) into canonical items that pass the submission schema`, async () => {
      const submission = await convertWorkbook(c.slug, workbook(c.sheet));
      expect(submission.items).toEqual(c.items);
    });
  }

  it('converts a bfe workbook saved as legacy .xls into the same items as its .xlsx', async () => {
    const submission = await convertWorkbook('bfe', workbook(bfeSheet, { bookType: 'xls' }));
    expect(submission.items).toEqual(bfeItems);
  });

  it('takes the manifest root fields from the form fields', async () => {
    const submission = await convertWorkbook('bfe', workbook(bfeSheet));
    expect(submission).toMatchObject({ ...form, manifestNumber: form.mawbNumber });
  });
});

describe('layout data', () => {
  const layouts = excelSlugs.map((slug) => layoutFor(slug)!);
  const itemFields = new Set(Object.keys(ManifestItem.pipe[0].entries));

  it('gives `default` and unknown slugs no layout', () => {
    expect(layoutFor('default')).toBeUndefined();
    expect(layoutFor('dhl')).toBeUndefined();
  });

  it('names each layout by the slug that selects it', () => {
    expect(layouts.map((l) => l.slug)).toEqual([...excelSlugs]);
  });

  it('keeps every header of a layout distinct once case, accents and punctuation are ignored', () => {
    for (const layout of layouts) {
      const headers = layout.columns.flatMap((c) => c.headers.map(normalizeHeader));
      expect(new Set(headers).size, layout.slug).toBe(headers.length);
    }
  });

  it('maps columns only to item fields of spec 2.5, each field from one place', () => {
    for (const layout of layouts) {
      const filled = [...layout.columns.flatMap((c) => (c.field ? [c.field] : [])), ...(layout.combine ?? []).map((c) => c.field)];
      for (const field of filled) expect(itemFields.has(field), `${layout.slug}: ${field}`).toBe(true);
      expect(new Set(filled).size, layout.slug).toBe(filled.length);
    }
  });

  it('requires and combines only names its columns provide', () => {
    for (const layout of layouts) {
      const names = new Set(layout.columns.flatMap((c) => [c.field, c.part].filter(Boolean)));
      const used = [...layout.required.flat(), ...(layout.combine ?? []).flatMap((c) => c.parts)];
      for (const name of used) expect(names.has(name as string), `${layout.slug}: ${name}`).toBe(true);
    }
  });

  it('accepts no JSON field name as a header, so such a header always means the file is for `default`', () => {
    for (const layout of layouts) for (const header of layout.columns.flatMap((c) => c.headers)) expect(jsonFieldNameOf(header), `${layout.slug}: ${header}`).toBeUndefined();
  });

  it('refuses a layout file of another shape at load, naming the slug and the place', () => {
    const file = { slug: 'acme', partner: 'Acme', about: '', columns: [{ headers: ['Peso'], field: 'weightKg' }], required: [['awbNumber']] };
    expect(() => layoutFrom(file)).toThrow(/^Excel layout acme: columns\.0\.field: /);
    expect(() => layoutFrom({ ...file, columns: [{ headers: [], field: 'awbNumber' }] })).toThrow(/columns\.0\.headers/);
    expect(() => layoutFrom({ ...file, columns: [{ headers: ['Guía'], field: 'awbNumber', as: 'kilos' }] })).toThrow(/columns\.0\.as/);
    expect(() => layoutFrom({ ...file, columns: [{ headers: ['Guía'], field: 'awbNumber', colour: 'red' }] })).toThrow(/columns\.0\.colour/);
    expect(layoutFrom({ ...file, columns: [{ headers: ['Guía'], field: 'awbNumber' }] }).slug).toBe('acme');
  });

  it('differs from every other layout in its headers', () => {
    const signature = (slug: string) => JSON.stringify(layoutFor(slug)!.columns.map((c) => c.headers));
    expect(new Set(excelSlugs.map(signature)).size).toBe(excelSlugs.length);
  });
});
