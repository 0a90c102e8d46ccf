import * as v from 'valibot';
import { safeIdentifier } from '../identifier';
import { isoAlpha2 } from './countries';
import { decimal4 } from './identity';

/**
 * The alternative manifest interface (spec 4.5): a flat product list under a manifest id. Each
 * product becomes an item of spec 2.5 and takes the same intake and processing path.
 */
export const maxProductsPerUpload = 1000;

const text = (max: number) =>
  v.pipe(v.string('Must be a string.'), v.trim(), v.nonEmpty('Must not be empty.'), v.maxLength(max, `Must be at most ${max} characters.`), v.regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/, 'Must not contain control characters.'));

/** A tax id as digits; hyphens, dots and spaces (20-12345678-6) are accepted and dropped. */
const TaxId = v.pipe(
  v.string('Must be a string.'),
  v.trim(),
  v.regex(/^[\d\s.-]+$/, 'Must be digits, optionally with hyphens (e.g. 20-12345678-6).'),
  v.transform((s) => s.replace(/\D/g, '')),
  v.minLength(7, 'Must have at least 7 digits.'),
  v.maxLength(11, 'Must have at most 11 digits.'),
);

/** The manifest id and AWBs are identifiers: see core/identifier.ts. */
const id = (max: number) =>
  v.pipe(v.string('Must be a string.'), v.trim(), v.nonEmpty('Must not be empty.'), v.maxLength(max, `Must be at most ${max} characters.`), safeIdentifier);

export const AlternativeProduct = v.pipe(
  v.object({
    awb_number: id(100),
    consignee: text(200),
    tax_id: v.optional(TaxId),
    product_description: text(1000),
    quantity: v.pipe(v.number('Must be a number (not text).'), v.integer('Must be a whole number.'), v.minValue(1, 'Must be at least 1.'), v.maxValue(1_000_000, 'Must be at most 1000000.')),
    unit_value: v.pipe(v.number('Must be a number (not text).'), v.finite('Must be a finite number.'), v.minValue(0, 'Must not be negative.')),
    country_of_manufacture: v.pipe(v.string('Must be a string.'), v.trim(), v.toUpperCase(), v.check((c) => isoAlpha2.has(c), 'Must be an ISO 3166-1 alpha-2 country code (e.g. CN).')),
  }),
  // The line's value becomes the item's fobValueUsd, which must stay an exact number (spec 2.5).
  v.forward(
    v.partialCheck(
      [['unit_value'], ['quantity']],
      (p) => p.unit_value * p.quantity <= Number.MAX_SAFE_INTEGER,
      `unit_value x quantity must be at most ${Number.MAX_SAFE_INTEGER}.`,
    ),
    ['unit_value'],
  ),
);

export const AlternativeManifest = v.object({
  manifest: id(50),
  products: v.pipe(
    v.array(AlternativeProduct, 'Must be an array of products.'),
    v.minLength(1, 'Send at least one product.'),
    v.maxLength(maxProductsPerUpload, `Send at most ${maxProductsPerUpload} products per upload; split larger manifests or use the courier webhook.`),
  ),
});

export type AlternativeProduct = v.InferOutput<typeof AlternativeProduct>;
export type AlternativeManifest = v.InferOutput<typeof AlternativeManifest>;

/** unit_value x quantity, computed on decimal digits to 4 places (no binary float drift). */
export function lineValue(unitValue: number, quantity: number): number {
  const unit = decimal4(unitValue)!;
  const [whole, frac] = unit.split('.');
  const scaled = BigInt(whole + frac) * BigInt(quantity);
  return Number(`${scaled / 10000n}.${String(scaled % 10000n).padStart(4, '0')}`);
}

/** The manifest as a submission of spec 2.5: the manifest id is its MAWB and its number. */
export function toSubmissionInput(m: AlternativeManifest) {
  return {
    mawbNumber: m.manifest,
    manifestNumber: m.manifest,
    items: m.products.map((p) => ({
      awbNumber: p.awb_number,
      consigneeName: p.consignee,
      ...(p.tax_id ? { consigneeIdNumber: p.tax_id } : {}),
      itemDescription: p.product_description,
      amountOfItems: p.quantity,
      fobValueUsd: lineValue(p.unit_value, p.quantity),
      originCountry: p.country_of_manufacture,
    })),
  };
}
