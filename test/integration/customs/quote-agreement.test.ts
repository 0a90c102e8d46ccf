import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { item, manifest, submitPath } from '#support/manifests';
import { cuitCheckDigit } from '#core/customs/tax-id';
import { rateStatuses } from '#core/customs/tariff-rates';

const t = useTwin();

/** A valid CUIL of its own person per case, so every personal case has its yearly quota. */
const cuil = (n: number) => {
  const first10 = `20${String(40_000_000 + n).padStart(8, '0')}`;
  return first10 + cuitCheckDigit(first10);
};
const companyCuit = '30703088534';

interface Case {
  what: string;
  fob: number;
  weight?: number;
  hs?: string;
  description?: string;
  quantity?: number;
  company?: boolean;
  regime: 'P' | 'C' | 'X';
}

/**
 * Twenty-one product lines, each its own shipment: personal within and above the franchise, commercial
 * by consignee and by units, no weight and a weight below the minimum, FOB with 3 decimals, partner
 * codes of 8 and 10 digits and one too short, prohibited goods and shipments over the courier limits,
 * and goods only the HS fallback tier knows.
 */
const cases: Case[] = [
  { what: 'a t-shirt by its partner code', fob: 12.5, weight: 0.3, hs: '6109.10.00', description: 'Cotton t-shirt', quantity: 1, regime: 'P' },
  { what: 'earbuds by description', fob: 35, weight: 0.2, description: 'Wireless bluetooth earbuds', regime: 'P' },
  { what: 'a smartphone', fob: 250, weight: 0.4, description: 'Smartphone Xiaomi Redmi Note 13 128GB', quantity: 1, regime: 'P' },
  { what: 'a notebook above the franchise', fob: 650, weight: 2.1, description: 'Notebook Lenovo 15 pulgadas', regime: 'P' },
  { what: 'sneakers a cent below the franchise', fob: 399.99, weight: 1.1, description: 'Zapatillas running hombre', quantity: 1, regime: 'P' },
  { what: 'a smartwatch a cent above the franchise', fob: 400.01, weight: 0.25, description: 'Reloj inteligente smartwatch', regime: 'P' },
  { what: 'a camera a cent below the courier limit', fob: 2999.99, weight: 3, description: 'Cámara fotográfica digital mirrorless', quantity: 1, regime: 'P' },
  { what: 'perfume for a company', fob: 120, weight: 0.5, description: 'Perfume eau de toilette 100ml', company: true, regime: 'C' },
  { what: 'a drill for a company', fob: 1500, weight: 4.2, description: 'Taladro percutor inalámbrico', quantity: 1, company: true, regime: 'C' },
  { what: 'four phone cases (more than 3 of a kind)', fob: 40, weight: 0.4, description: 'Funda de silicona para celular', quantity: 4, regime: 'C' },
  { what: 'a book without a weight', fob: 25, hs: '4901.99.00', description: 'Libro de cocina', regime: 'P' },
  { what: 'a ring under the minimum weight', fob: 60, weight: 0.05, description: 'Anillo de plata', quantity: 1, regime: 'P' },
  { what: 'a mug of FOB 19.999', fob: 19.999, weight: 0.35, description: 'Taza de cerámica', regime: 'P' },
  { what: 'an air pistol (prohibited)', fob: 80, weight: 1, description: 'Pistola de aire comprimido 9mm', quantity: 1, regime: 'X' },
  { what: 'a notebook over USD 3,000', fob: 3500, weight: 2.8, description: 'Notebook gamer', regime: 'X' },
  { what: 'a bicycle of 60 kg', fob: 500, weight: 60, description: 'Bicicleta de montaña rodado 29', quantity: 1, regime: 'X' },
  { what: 'a phone by a 10-digit code', fob: 300, weight: 0.5, hs: '8517130000', description: 'Teléfono celular', regime: 'P' },
  { what: 'earphones with a code too short to use', fob: 45, weight: 0.3, hs: '12', description: 'Auriculares inalámbricos', quantity: 1, regime: 'P' },
  { what: 'three pairs of socks (3 of a kind)', fob: 15.75, weight: 0.6, description: 'Medias de algodón', quantity: 3, regime: 'P' },
  { what: 'a monitor for a company, CIF above USD 2,500', fob: 2800.5, weight: 12.345, description: 'Monitor LED 27 pulgadas', company: true, regime: 'C' },
  { what: 'olive oil, found by the HS fallback tier', fob: 30, weight: 1, description: 'Aceite de oliva extra virgen 500ml', regime: 'P' },
];

const key = (i: number) => `case-${i + 1}`;

describe('a landed-cost quote and the pipeline', { timeout: 120_000 }, () => {
  it('agree to the cent on 21 products: regime, tariff code, rates and their sources, every amount and every explanation line', async () => {
    const { token } = await t.account('Quote Agreement');
    const lines = cases.map((c, i) =>
      item(900 + i, {
        itemIdempotencyKey: key(i),
        consigneeIdType: c.company ? 'CUIT' : 'CUIL',
        consigneeIdNumber: c.company ? companyCuit : cuil(i),
        itemDescription: c.description,
        hsCode: c.hs,
        fobValueUsd: c.fob,
        totalWeightKg: c.weight,
        amountOfItems: c.quantity,
      }),
    );
    const idempotencyKey = randomUUID();
    const sent = await t.submit(submitPath(), { token, body: manifest(0, { items: lines }), headers: { 'idempotency-key': idempotencyKey } });
    expect(sent.status).toBe(202);
    await t.settle();
    const batchId = (await t.call('GET', `/v1/couriers/default/webhook/${idempotencyKey}/status`, { token })).body.batch_id;
    const download = await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token });
    expect(download.status).toBe(200);
    const products = new Map<string, any>(download.body.data.products.map((p: any) => [p.item_key, p]));
    expect(products.size).toBe(cases.length);

    for (const [i, c] of cases.entries()) {
      const product = products.get(key(i));
      const quote = await t.call('POST', '/v1/customs/calculate', {
        token,
        body: {
          destination_country: 'AR',
          origin_country: 'CN',
          currency: 'USD',
          declared_value: c.fob,
          weight: c.weight,
          hs_code: c.hs,
          description: c.description,
          quantity: c.quantity,
          // The quote knows no consignee: a company's shipment is asked for as commercial.
          regime: c.company ? 'commercial' : 'auto',
        },
      });
      expect(quote.status, c.what).toBe(200);
      const q = quote.body.data;
      expect(product.regime, c.what).toBe(c.regime);
      expect(q.regime_used, c.what).toBe(product.regime);
      expect({ code: q.ncm.code, source: q.ncm.source, confidence: q.ncm.confidence }, c.what).toEqual({
        code: product.ncm_code,
        source: product.classification_source,
        confidence: product.classification_confidence,
      });
      expect(q.duties_and_taxes, c.what).toEqual(product.breakdown);
      expect(rateStatuses(q.ncm.rates), c.what).toEqual(product.tariff_rates);
      expect(q.total_landed_cost, c.what).toBe(product.ddp_value);
      expect([q.values.cif, q.duties_and_taxes.amount_to_pay, q.duties_and_taxes.customs_duty], c.what).toEqual([product.cif_value, product.amount_to_pay, product.customs_duty]);
    }
  });
});
