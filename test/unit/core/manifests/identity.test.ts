import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import {
  clientToHashedField,
  decide,
  decimal4,
  hashedFields,
  itemKey,
  normalizedFields,
  payloadHash,
  type HashableItem,
} from '#core/manifests/identity';
import { ManifestItem } from '#core/manifests/submission';

const base: HashableItem = {
  awbNumber: 'HAWB-1',
  trackingNumber: 'TRK-1',
  boxNumber: 'BOX-1',
  shipperName: 'Shenzhen Toys Ltd',
  consigneeName: 'Ana Pérez',
  consigneeIdNumber: '20123456786',
  consigneeAddress: 'Av. Corrientes 1234',
  consigneeCity: 'CABA',
  consigneeProvince: 'Buenos Aires',
  consigneePostalCode: 'C1043',
  consigneePhoneNumber: '+54 11 5555 0000',
  consigneeEmail: 'ana@example.com',
  itemDescription: 'Plastic toy car',
  itemName: 'Toy car',
  customerName: 'Shop 42',
  productLink: 'https://shop.example/car',
  Category: 'Toys',
  originCountry: 'CN',
  totalWeightKg: 0.35,
  amountOfItems: 2,
  amountOfPackages: 1,
  fobValueUsd: 25,
  hsCode: '9503.00.99',
};

const spec = { teamId: 'team-1', manifestNumber: 'M-1', batchId: 'b-1' };
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('the hashed fields', () => {
  it('are the 22 fields of the spec, in its order, each mapped from one client field', () => {
    expect(hashedFields).toEqual([
      'awb_number', 'box_number', 'sender', 'consignee', 'tax_id', 'consignee_address1', 'consignee_city',
      'consignee_province', 'consignee_zip', 'consignee_phone', 'consignee_email', 'product_description', 'notes',
      'article_url', 'category_id', 'country_of_manufacture', 'weight', 'quantity', 'packages', 'unit_value',
      'total_value', 'hts_code',
    ]);
    expect(clientToHashedField.map((m) => m.hashed)).toEqual([...hashedFields]);
    expect(clientToHashedField.find((m) => m.hashed === 'notes')?.from).toBe('customerName');
    expect(Object.keys(normalizedFields(base))).toEqual([...hashedFields]);
  });
});

describe('normalization', () => {
  it('maps a full item field by field', () => {
    expect(normalizedFields(base)).toEqual({
      awb_number: 'HAWB-1',
      box_number: 'BOX-1',
      sender: 'Shenzhen Toys Ltd',
      consignee: 'Ana Pérez',
      tax_id: '20123456786',
      consignee_address1: 'Av. Corrientes 1234',
      consignee_city: 'CABA',
      consignee_province: 'Buenos Aires',
      consignee_zip: 'C1043',
      consignee_phone: '+54 11 5555 0000',
      consignee_email: 'ana@example.com',
      product_description: 'Plastic toy car',
      notes: 'Shop 42',
      article_url: 'https://shop.example/car',
      category_id: 'Toys',
      country_of_manufacture: 'CN',
      weight: '0.3500',
      quantity: '2',
      packages: '1',
      unit_value: '12.5000',
      total_value: '25.0000',
      hts_code: '95030099',
    });
  });

  it('trims strings and turns empty ones into null', () => {
    const n = normalizedFields({ ...base, consigneeCity: '  CABA  ', boxNumber: '   ', shipperName: '' });
    expect(n.consignee_city).toBe('CABA');
    expect(n.box_number).toBeNull();
    expect(n.sender).toBeNull();
  });

  it('gives null for every absent field', () => {
    const n = normalizedFields({});
    expect(Object.values(n).every((x) => x === null)).toBe(true);
  });

  it('lower-cases e-mails and upper-cases country codes', () => {
    const n = normalizedFields({ ...base, consigneeEmail: ' Ana@Example.COM ', originCountry: 'cn' });
    expect(n.consignee_email).toBe('ana@example.com');
    expect(n.country_of_manufacture).toBe('CN');
  });

  it('writes decimals with 4 places', () => {
    expect(normalizedFields({ ...base, totalWeightKg: 12.5 }).weight).toBe('12.5000');
    expect(normalizedFields({ ...base, fobValueUsd: 0 }).total_value).toBe('0.0000');
  });

  it('rounds half away from zero on the decimal digits, without float drift', () => {
    expect(decimal4(1.00005)).toBe('1.0001');
    expect(decimal4(2.00045)).toBe('2.0005'); // (2.00045).toFixed(4) gives 2.0004
    expect(decimal4(10.00005)).toBe('10.0001'); // (10.00005).toFixed(4) gives 10.0000
    expect(decimal4(0.00015)).toBe('0.0002'); // (0.00015).toFixed(4) gives 0.0001
    expect(decimal4(1.00004)).toBe('1.0000');
    expect(decimal4(0.1 + 0.2)).toBe('0.3000');
    expect(decimal4(2.675)).toBe('2.6750');
    expect(decimal4(1.23456789)).toBe('1.2346');
    expect(decimal4(0.00005)).toBe('0.0001');
    expect(decimal4(1e-7)).toBe('0.0000');
    expect(decimal4(1e21)).toBe('1000000000000000000000.0000');
    expect(decimal4(-1.00005)).toBe('-1.0001');
    expect(decimal4('12.34565')).toBe('12.3457');
    expect(decimal4(undefined)).toBeNull();
    expect(decimal4(Number.NaN)).toBeNull();
  });

  it('divides the FOB value by the item count for the unit value, exactly', () => {
    expect(normalizedFields({ ...base, fobValueUsd: 10, amountOfItems: 3 }).unit_value).toBe('3.3333');
    expect(normalizedFields({ ...base, fobValueUsd: 20, amountOfItems: 3 }).unit_value).toBe('6.6667');
    expect(normalizedFields({ ...base, fobValueUsd: 0.3, amountOfItems: 8 }).unit_value).toBe('0.0375');
    expect(normalizedFields({ ...base, fobValueUsd: 25, amountOfItems: undefined }).unit_value).toBe('25.0000');
    expect(normalizedFields({ ...base, fobValueUsd: 25, amountOfItems: 0 }).unit_value).toBe('25.0000');
    expect(normalizedFields({ ...base, fobValueUsd: undefined }).unit_value).toBeNull();
  });

  it('keeps only the digits of tariff codes', () => {
    expect(normalizedFields({ ...base, hsCode: ' 8517.13.00 ' }).hts_code).toBe('85171300');
    expect(normalizedFields({ ...base, hsCode: '8517-13' }).hts_code).toBe('851713');
    expect(normalizedFields({ ...base, hsCode: '--' }).hts_code).toBeNull();
  });

  it('takes awbNumber over trackingNumber, and trackingNumber when there is no awbNumber', () => {
    expect(normalizedFields(base).awb_number).toBe('HAWB-1');
    expect(normalizedFields({ ...base, awbNumber: undefined }).awb_number).toBe('TRK-1');
  });

  it('uses itemName as the description only when there is no itemDescription', () => {
    expect(normalizedFields({ ...base, itemDescription: undefined }).product_description).toBe('Toy car');
    expect(normalizedFields({ ...base, itemDescription: '  ' }).product_description).toBe('Toy car');
  });
});

describe('the payload hash', () => {
  it('is the sha256 of the normalized fields as JSON', () => {
    expect(payloadHash(base)).toBe(sha256(JSON.stringify(normalizedFields(base))));
    expect(payloadHash(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on the key order of the item', () => {
    const reversed = Object.fromEntries(Object.entries(base).reverse()) as HashableItem;
    expect(payloadHash(reversed)).toBe(payloadHash(base));
  });

  it('ignores whitespace and case noise that normalization removes', () => {
    const noisy: HashableItem = {
      ...base,
      consigneeName: '  Ana Pérez ',
      consigneeEmail: 'ANA@example.com ',
      originCountry: ' cn',
      hsCode: '9503 00 99',
      totalWeightKg: 0.35,
      fobValueUsd: 25.0,
    };
    expect(payloadHash(noisy)).toBe(payloadHash(base));
  });

  it('is the same for the validated item and the raw one', () => {
    const raw = { ...base, originCountry: 'cn', consigneeCity: ' CABA ' };
    const parsed = v.parse(ManifestItem, raw);
    expect(payloadHash(parsed)).toBe(payloadHash(base));
  });

  const changes: [keyof HashableItem, unknown][] = [
    ['awbNumber', 'HAWB-2'],
    ['boxNumber', 'BOX-2'],
    ['shipperName', 'Other Shipper'],
    ['consigneeName', 'Juan Gómez'],
    ['consigneeIdNumber', '27123456781'],
    ['consigneeAddress', 'Av. Santa Fe 1'],
    ['consigneeCity', 'Rosario'],
    ['consigneeProvince', 'Santa Fe'],
    ['consigneePostalCode', 'S2000'],
    ['consigneePhoneNumber', '+54 341 000'],
    ['consigneeEmail', 'juan@example.com'],
    ['itemDescription', 'Metal toy car'],
    ['customerName', 'Shop 43'],
    ['productLink', 'https://shop.example/car2'],
    ['Category', 'Games'],
    ['originCountry', 'US'],
    ['totalWeightKg', 0.3501],
    ['amountOfItems', 3],
    ['amountOfPackages', 2],
    ['fobValueUsd', 25.0001],
    ['hsCode', '9503.00.98'],
  ];
  for (const [field, value] of changes) {
    it(`changes when ${String(field)} changes`, () => {
      expect(payloadHash({ ...base, [field]: value })).not.toBe(payloadHash(base));
    });
  }

  it('changes when trackingNumber changes and there is no awbNumber', () => {
    const noAwb = { ...base, awbNumber: undefined };
    expect(payloadHash({ ...noAwb, trackingNumber: 'TRK-2' })).not.toBe(payloadHash(noAwb));
  });

  it('changes when itemName changes and there is no itemDescription', () => {
    const noDescription = { ...base, itemDescription: undefined };
    expect(payloadHash({ ...noDescription, itemName: 'Toy truck' })).not.toBe(payloadHash(noDescription));
  });

  it('does not change for broker-owned or non-hashed fields', () => {
    const withBrokerFields = {
      ...base,
      regime: 'P',
      customs_channel: 'RO',
      cif_value: 31.2,
      ddp_value: 45,
      customs_duty: 3.1,
      ncm_code: '9503.00.99',
    } as HashableItem;
    expect(payloadHash(withBrokerFields)).toBe(payloadHash(base));
    expect(payloadHash({ ...base, trackingNumber: 'TRK-OTHER' })).toBe(payloadHash(base)); // awbNumber wins
    expect(payloadHash({ ...base, itemName: 'Other name' })).toBe(payloadHash(base)); // description wins
    expect(payloadHash({ ...base, imageLink: 'https://img.example/1.png' })).toBe(payloadHash(base));
    expect(payloadHash({ ...base, consigneeIdType: 'CUIL' })).toBe(payloadHash(base));
    expect(payloadHash({ ...base, totalVolumetricWeightKg: 9 })).toBe(payloadHash(base));
    expect(payloadHash({ ...base, shipperEmail: 'ship@example.com' })).toBe(payloadHash(base));
    expect(payloadHash({ ...base, itemIdempotencyKey: 'line-1' })).toBe(payloadHash(base));
  });
});

describe('the item key', () => {
  it('is the explicit itemIdempotencyKey, trimmed, when given', () => {
    expect(itemKey({ ...spec, item: { ...base, itemIdempotencyKey: '  line-1 ' } })).toBe('line-1');
    expect(itemKey({ ...spec, item: { ...base, itemIdempotencyKey: 'line-1', consigneeCity: 'Rosario' } })).toBe('line-1');
  });

  it('is derived from team, manifest, batch, AWB and payload hash otherwise', () => {
    expect(itemKey({ ...spec, item: base })).toBe(sha256(`team-1|M-1|b-1|HAWB-1|${payloadHash(base)}`));
    expect(itemKey({ ...spec, item: { ...base, itemIdempotencyKey: '   ' } })).toBe(itemKey({ ...spec, item: base }));
  });

  it('changes when any hashed field changes, so a change without an explicit key reads as a new item', () => {
    expect(itemKey({ ...spec, item: { ...base, consigneeCity: 'Rosario' } })).not.toBe(itemKey({ ...spec, item: base }));
    expect(itemKey({ ...spec, item: { ...base, fobValueUsd: 26 } })).not.toBe(itemKey({ ...spec, item: base }));
  });

  it('changes with the team, the manifest or the batch', () => {
    const key = itemKey({ ...spec, item: base });
    expect(itemKey({ ...spec, teamId: 'team-2', item: base })).not.toBe(key);
    expect(itemKey({ ...spec, manifestNumber: 'M-2', item: base })).not.toBe(key);
    expect(itemKey({ ...spec, batchId: 'b-2', item: base })).not.toBe(key);
  });
});

describe('the update-mode decision', () => {
  const incoming = { key: 'line-1', hash: 'h1', awb: 'HAWB-1' };

  it('creates when the batch has no record with that key', () => {
    expect(decide(undefined, incoming, new Set())).toEqual({ decision: 'CREATE', reason: 'no existing record in the batch' });
  });

  it('skips when the hashed payload is identical', () => {
    expect(decide({ key: 'line-1', hash: 'h1' }, incoming, new Set()).decision).toBe('SKIP');
  });

  it('updates when the hashed payload differs', () => {
    expect(decide({ key: 'line-1', hash: 'h0' }, incoming, new Set()).decision).toBe('UPDATE');
  });

  it('rejects an item without AWB', () => {
    expect(decide(undefined, { ...incoming, awb: undefined }, new Set())).toEqual({ decision: 'REJECT', reason: 'missing AWB' });
    expect(decide(undefined, { ...incoming, awb: '  ' }, new Set()).decision).toBe('REJECT');
  });

  it('rejects an item without key', () => {
    expect(decide(undefined, { ...incoming, key: ' ' }, new Set())).toEqual({ decision: 'REJECT', reason: 'missing idempotency key' });
  });

  it('rejects a key repeated within the same payload, and records the keys it sees', () => {
    const seen = new Set<string>();
    expect(decide(undefined, incoming, seen).decision).toBe('CREATE');
    expect(seen.has('line-1')).toBe(true);
    expect(decide({ key: 'line-1', hash: 'h0' }, incoming, seen)).toEqual({
      decision: 'REJECT',
      reason: 'duplicate idempotency key in payload',
    });
  });

  it('rejects an AWB that belongs to another team', () => {
    expect(decide(undefined, { ...incoming, crossTeam: true }, new Set())).toEqual({
      decision: 'REJECT',
      reason: 'AWB belongs to another team',
    });
  });

  it('skips a resend of the same validated item and updates a real change, end to end', () => {
    const first = v.parse(ManifestItem, { ...base, itemIdempotencyKey: 'line-9' });
    const stored = { key: itemKey({ ...spec, item: first }), hash: payloadHash(first) };
    const resend = v.parse(ManifestItem, { ...base, itemIdempotencyKey: 'line-9', consigneeEmail: 'ANA@EXAMPLE.COM' });
    const changed = v.parse(ManifestItem, { ...base, itemIdempotencyKey: 'line-9', consigneeCity: 'Rosario' });
    const incomingOf = (item: typeof first) => ({ key: itemKey({ ...spec, item }), hash: payloadHash(item), awb: 'HAWB-1' });
    expect(decide(stored, incomingOf(resend), new Set()).decision).toBe('SKIP');
    expect(decide(stored, incomingOf(changed), new Set()).decision).toBe('UPDATE');
  });
});
