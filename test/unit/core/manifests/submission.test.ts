import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { ManifestSubmission, awbOf, maxItemsPerSubmission } from '#core/manifests/submission';
import { isoAlpha2, isoAlpha2Codes } from '#core/manifests/countries';
import { fieldErrors } from '#http/kit/validate';

const item = (over: Record<string, unknown> = {}) => ({
  trackingNumber: 'TRK-1',
  originCountry: 'CN',
  consigneeName: 'Ana Pérez',
  ...over,
});
const manifest = (over: Record<string, unknown> = {}) => ({ mawbNumber: '999-12345678', items: [item()], ...over });

/** Parses as the HTTP layer does; returns either the output or the errors keyed by path. */
function parse(input: unknown) {
  const res = v.safeParse(ManifestSubmission, input, { abortPipeEarly: true });
  return res.success ? { ok: true as const, output: res.output } : { ok: false as const, errors: fieldErrors(res.issues) };
}
const errorsOf = (input: unknown) => {
  const r = parse(input);
  if (r.ok) throw new Error('expected a validation failure');
  return r.errors;
};
const outputOf = (input: unknown) => {
  const r = parse(input);
  if (!r.ok) throw new Error(`expected success, got ${JSON.stringify(r.errors)}`);
  return r.output;
};

const rootBounds: [string, number][] = [
  ['mawbNumber', 50],
  ['manifestNumber', 100],
  ['batchId', 100],
  ['airline', 100],
  ['flightNumber', 50],
  ['aircraftRegistration', 50],
  ['originAirport', 5],
  ['customsBrokerCode', 50],
];

const itemBounds: [string, number][] = [
  ['trackingNumber', 100],
  ['awbNumber', 100],
  ['itemIdempotencyKey', 128],
  ['consigneeName', 200],
  ['consigneeAddress', 255],
  ['consigneeCity', 100],
  ['consigneeProvince', 100],
  ['consigneePostalCode', 20],
  ['consigneeIdType', 50],
  ['consigneePhoneNumber', 50],
  ['itemName', 255],
  ['itemDescription', 1000],
  ['hsCode', 20],
  ['boxNumber', 50],
  ['Category', 100],
  ['customerName', 200],
  ['shipperName', 200],
];

const emailOf = (length: number) => `${'a'.repeat(length - '@example.com'.length)}@example.com`;
const urlOf = (length: number) => `https://shop.example/${'p'.repeat(length - 'https://shop.example/'.length)}`;

describe('the manifest root', () => {
  it('accepts a minimal manifest and defaults manifestNumber to mawbNumber', () => {
    const out = outputOf(manifest());
    expect(out.manifestNumber).toBe('999-12345678');
    expect(out.items).toHaveLength(1);
  });

  it('keeps a manifestNumber that is sent', () => {
    expect(outputOf(manifest({ manifestNumber: 'M-7' })).manifestNumber).toBe('M-7');
  });

  it('requires mawbNumber and items', () => {
    expect(errorsOf({})).toEqual({ mawbNumber: ['Required.'], items: ['Required.'] });
  });

  it('refuses an empty item list', () => {
    expect(errorsOf(manifest({ items: [] }))).toEqual({ items: ['Send at least one item.'] });
  });

  it('refuses more items than the per-request maximum', () => {
    const items = Array.from({ length: maxItemsPerSubmission + 1 }, () => item());
    expect(Object.keys(errorsOf(manifest({ items })))).toEqual(['items']);
  });

  for (const [field, max] of rootBounds) {
    it(`accepts ${field} at ${max} characters and refuses ${max + 1}`, () => {
      outputOf(manifest({ [field]: 'x'.repeat(max) }));
      expect(errorsOf(manifest({ [field]: 'x'.repeat(max + 1) }))).toEqual({ [field]: [`Must be at most ${max} characters.`] });
    });
  }
});

describe('the item fields', () => {
  for (const [field, max] of itemBounds) {
    it(`accepts ${field} at ${max} characters and refuses ${max + 1} on items.0.${field}`, () => {
      outputOf(manifest({ items: [item({ [field]: 'x'.repeat(max) })] }));
      expect(errorsOf(manifest({ items: [item({ [field]: 'x'.repeat(max + 1) })] }))).toEqual({
        [`items.0.${field}`]: [`Must be at most ${max} characters.`],
      });
    });
  }

  it('accepts the digits-only consigneeIdNumber at 50 digits and refuses 51', () => {
    outputOf(manifest({ items: [item({ consigneeIdNumber: '1'.repeat(50) })] }));
    expect(errorsOf(manifest({ items: [item({ consigneeIdNumber: '1'.repeat(51) })] }))).toEqual({
      'items.0.consigneeIdNumber': ['Must be at most 50 characters.'],
    });
  });

  for (const field of ['consigneeEmail', 'shipperEmail']) {
    it(`accepts ${field} at 150 characters and refuses 151`, () => {
      expect(outputOf(manifest({ items: [item({ [field]: emailOf(150) })] })).items[0]).toHaveProperty(field, emailOf(150));
      expect(errorsOf(manifest({ items: [item({ [field]: emailOf(151) })] }))).toEqual({
        [`items.0.${field}`]: ['Must be at most 150 characters.'],
      });
    });

    it(`refuses a ${field} that is not shaped like an e-mail address`, () => {
      expect(errorsOf(manifest({ items: [item({ [field]: 'ana at example' })] }))).toEqual({
        [`items.0.${field}`]: ['Must be an e-mail address.'],
      });
    });
  }

  for (const field of ['productLink', 'imageLink']) {
    it(`accepts ${field} at 500 characters and refuses 501`, () => {
      outputOf(manifest({ items: [item({ [field]: urlOf(500) })] }));
      expect(errorsOf(manifest({ items: [item({ [field]: urlOf(501) })] }))).toEqual({
        [`items.0.${field}`]: ['Must be at most 500 characters.'],
      });
    });

    it(`refuses a ${field} that is not an http(s) URL`, () => {
      for (const bad of ['shop.example/item', 'ftp://shop.example/item', 'javascript:alert(1)']) {
        expect(Object.keys(errorsOf(manifest({ items: [item({ [field]: bad })] })))).toEqual([`items.0.${field}`]);
      }
      outputOf(manifest({ items: [item({ [field]: 'http://shop.example/item?id=1' })] }));
    });
  }

  it('requires originCountry and consigneeName on every item', () => {
    expect(errorsOf(manifest({ items: [{ trackingNumber: 'T' }] }))).toEqual({
      'items.0.originCountry': ['Required.'],
      'items.0.consigneeName': ['Required.'],
    });
  });

  it('trims strings and treats empty or null optional fields as absent', () => {
    const out = outputOf(manifest({ items: [item({ consigneeCity: '  Córdoba ', itemName: '', boxNumber: null, consigneeProvince: '  ' })] }));
    expect(out.items[0].consigneeCity).toBe('Córdoba');
    expect(out.items[0].itemName).toBeUndefined();
    expect(out.items[0].boxNumber).toBeUndefined();
    expect(out.items[0].consigneeProvince).toBe('Buenos Aires');
  });

  it('defaults consigneeProvince to Buenos Aires and keeps one that is sent', () => {
    expect(outputOf(manifest()).items[0].consigneeProvince).toBe('Buenos Aires');
    expect(outputOf(manifest({ items: [item({ consigneeProvince: 'Mendoza' })] })).items[0].consigneeProvince).toBe('Mendoza');
  });

  it('ignores item fields the spec does not name', () => {
    const out = outputOf(manifest({ items: [item({ warehouseBin: 'B-12', regime: 'P' })] }));
    expect(out.items[0]).not.toHaveProperty('warehouseBin');
    expect(out.items[0]).not.toHaveProperty('regime');
  });

  it('reads Category only with a capital C', () => {
    expect(outputOf(manifest({ items: [item({ Category: 'Toys' })] })).items[0].Category).toBe('Toys');
    expect(outputOf(manifest({ items: [item({ category: 'Toys' })] })).items[0].Category).toBeUndefined();
  });
});

describe('the air waybill of an item', () => {
  it('needs awbNumber or trackingNumber, reported on items.N.awbNumber', () => {
    expect(errorsOf(manifest({ items: [item({ trackingNumber: undefined })] }))).toEqual({
      'items.0.awbNumber': ['Send awbNumber or trackingNumber.'],
    });
    expect(errorsOf(manifest({ items: [item({ trackingNumber: '  ', awbNumber: '' })] }))).toEqual({
      'items.0.awbNumber': ['Send awbNumber or trackingNumber.'],
    });
  });

  it('accepts either one alone', () => {
    outputOf(manifest({ items: [item({ trackingNumber: undefined, awbNumber: 'HAWB-1' })] }));
    outputOf(manifest({ items: [item({ trackingNumber: 'TRK-9' })] }));
  });

  it('takes awbNumber when both are sent, else trackingNumber', () => {
    const out = outputOf(manifest({ items: [item({ awbNumber: 'HAWB-1', trackingNumber: 'TRK-1' }), item({ trackingNumber: 'TRK-2' })] }));
    expect(awbOf(out.items[0])).toBe('HAWB-1');
    expect(awbOf(out.items[1])).toBe('TRK-2');
    expect(awbOf({})).toBeUndefined();
  });
});

describe('the country of origin', () => {
  it('lists all 249 officially assigned ISO 3166-1 alpha-2 codes', () => {
    expect(isoAlpha2Codes).toHaveLength(249);
    expect(isoAlpha2.size).toBe(249);
    expect([...isoAlpha2Codes].sort()).toEqual([...isoAlpha2Codes]);
    for (const code of ['AR', 'CN', 'US', 'BR', 'SS', 'CW', 'BQ', 'SX', 'AX']) expect(isoAlpha2.has(code)).toBe(true);
    for (const code of ['XX', 'UK', 'EU', 'XK', 'AN', 'YU']) expect(isoAlpha2.has(code)).toBe(false);
  });

  it('accepts AR', () => {
    expect(outputOf(manifest({ items: [item({ originCountry: 'AR' })] })).items[0].originCountry).toBe('AR');
  });

  it('normalizes ar to AR', () => {
    expect(outputOf(manifest({ items: [item({ originCountry: ' ar ' })] })).items[0].originCountry).toBe('AR');
  });

  it('refuses XX and ARG', () => {
    for (const bad of ['XX', 'ARG', '', 'A']) {
      expect(Object.keys(errorsOf(manifest({ items: [item({ originCountry: bad })] })))).toEqual(['items.0.originCountry']);
    }
  });
});

describe('the consignee tax id', () => {
  it('must be digits only', () => {
    for (const bad of ['20-12345678-6', '20.123.456', '2012345678 6', 'ABC']) {
      expect(errorsOf(manifest({ items: [item({ consigneeIdNumber: bad })] }))).toEqual({
        'items.0.consigneeIdNumber': ['Must contain digits only (no hyphens, dots or spaces).'],
      });
    }
  });

  it('has 11 digits when it is a CUIT or CUIL, in any case of the type', () => {
    for (const type of ['CUIT', 'CUIL', 'cuit']) {
      outputOf(manifest({ items: [item({ consigneeIdType: type, consigneeIdNumber: '20123456786' })] }));
      expect(errorsOf(manifest({ items: [item({ consigneeIdType: type, consigneeIdNumber: '2012345678' })] }))).toEqual({
        'items.0.consigneeIdNumber': ['A CUIT or CUIL has 11 digits.'],
      });
    }
  });

  it('may have another length for a DNI', () => {
    outputOf(manifest({ items: [item({ consigneeIdType: 'DNI', consigneeIdNumber: '12345678' })] }));
  });
});

describe('the numeric item fields', () => {
  it('accept numbers and zero', () => {
    const out = outputOf(
      manifest({ items: [item({ fobValueUsd: 12.5, totalWeightKg: 0, totalVolumetricWeightKg: 1.25, amountOfItems: 3, amountOfPackages: 0 })] }),
    );
    expect(out.items[0]).toMatchObject({ fobValueUsd: 12.5, totalWeightKg: 0, amountOfItems: 3, amountOfPackages: 0 });
  });

  it('refuse numbers sent as text', () => {
    for (const field of ['fobValueUsd', 'totalWeightKg', 'totalVolumetricWeightKg', 'amountOfItems', 'amountOfPackages']) {
      expect(errorsOf(manifest({ items: [item({ [field]: '12' })] }))).toEqual({ [`items.0.${field}`]: ['Must be a number (not text).'] });
    }
  });

  it('refuse negative values', () => {
    for (const field of ['fobValueUsd', 'totalWeightKg', 'totalVolumetricWeightKg', 'amountOfItems', 'amountOfPackages']) {
      expect(errorsOf(manifest({ items: [item({ [field]: -1 })] }))).toEqual({ [`items.0.${field}`]: ['Must not be negative.'] });
    }
  });

  it('refuse fractions for the counts', () => {
    for (const field of ['amountOfItems', 'amountOfPackages']) {
      expect(errorsOf(manifest({ items: [item({ [field]: 1.5 })] }))).toEqual({ [`items.0.${field}`]: ['Must be a whole number.'] });
    }
  });

  it('refuse values that are not finite', () => {
    expect(Object.keys(errorsOf(manifest({ items: [item({ fobValueUsd: Number.POSITIVE_INFINITY })] })))).toEqual(['items.0.fobValueUsd']);
    expect(Object.keys(errorsOf(manifest({ items: [item({ totalWeightKg: Number.NaN })] })))).toEqual(['items.0.totalWeightKg']);
  });
});

describe('error paths', () => {
  it('name the item by its index, e.g. items.12.consigneeEmail for the 13th', () => {
    const items = Array.from({ length: 13 }, (_, i) => item({ trackingNumber: `T${i}`, consigneeEmail: `c${i}@example.com` }));
    items[12] = item({ trackingNumber: 'T12', consigneeEmail: 'not-an-email' });
    expect(errorsOf(manifest({ items }))).toEqual({ 'items.12.consigneeEmail': ['Must be an e-mail address.'] });
  });

  it('report several bad items at once', () => {
    const errors = errorsOf(manifest({ items: [item({ originCountry: 'XX' }), item(), item({ trackingNumber: undefined })] }));
    expect(Object.keys(errors).sort()).toEqual(['items.0.originCountry', 'items.2.awbNumber']);
  });
});

describe('the chunk metadata', () => {
  const chunk = (over: Record<string, unknown> = {}) => ({
    chunk_number: 1,
    total_chunks: 3,
    base_idempotency_key: '6f1c3a52-8d1e-4b7a-9c2f-0e5d4a3b2c1d',
    total_items: 250,
    ...over,
  });

  it('is optional and accepted when well formed', () => {
    expect(outputOf(manifest())._chunk_metadata).toBeUndefined();
    expect(outputOf(manifest({ _chunk_metadata: chunk({ chunk_number: 3 }) }))._chunk_metadata).toEqual(chunk({ chunk_number: 3 }));
  });

  it('refuses a chunk number above the total, on _chunk_metadata.chunk_number', () => {
    expect(errorsOf(manifest({ _chunk_metadata: chunk({ chunk_number: 4 }) }))).toEqual({
      '_chunk_metadata.chunk_number': ['Must not be greater than total_chunks.'],
    });
  });

  it('counts chunks from 1 and allows at most 50', () => {
    expect(Object.keys(errorsOf(manifest({ _chunk_metadata: chunk({ chunk_number: 0 }) })))).toEqual(['_chunk_metadata.chunk_number']);
    outputOf(manifest({ _chunk_metadata: chunk({ chunk_number: 50, total_chunks: 50 }) }));
    expect(Object.keys(errorsOf(manifest({ _chunk_metadata: chunk({ total_chunks: 51 }) })))).toEqual(['_chunk_metadata.total_chunks']);
    expect(Object.keys(errorsOf(manifest({ _chunk_metadata: chunk({ total_chunks: 0 }) })))).toEqual(['_chunk_metadata.total_chunks']);
  });

  it('needs whole numbers, a UUID and at least one item', () => {
    expect(Object.keys(errorsOf(manifest({ _chunk_metadata: chunk({ chunk_number: 1.5 }) })))).toEqual(['_chunk_metadata.chunk_number']);
    expect(Object.keys(errorsOf(manifest({ _chunk_metadata: chunk({ chunk_number: '1' }) })))).toEqual(['_chunk_metadata.chunk_number']);
    expect(errorsOf(manifest({ _chunk_metadata: chunk({ base_idempotency_key: 'abc' }) }))).toEqual({
      '_chunk_metadata.base_idempotency_key': ['Must be a UUID.'],
    });
    expect(Object.keys(errorsOf(manifest({ _chunk_metadata: chunk({ total_items: 0 }) })))).toEqual(['_chunk_metadata.total_items']);
  });

  it('requires every field', () => {
    expect(errorsOf(manifest({ _chunk_metadata: {} }))).toEqual({
      '_chunk_metadata.chunk_number': ['Required.'],
      '_chunk_metadata.total_chunks': ['Required.'],
      '_chunk_metadata.base_idempotency_key': ['Required.'],
      '_chunk_metadata.total_items': ['Required.'],
    });
    expect(errorsOf(manifest({ _chunk_metadata: 'chunk 1 of 3' }))).toEqual({ _chunk_metadata: ['Must be an object.'] });
  });
});
