import { createHash } from 'node:crypto';
import type { ClassifyInput } from '#core/tariff/classifier';

/**
 * What identifies a product for the partner-code memory: its description, name and category as
 * words (case, accents and spacing folded) and its declared code as digits. The same product in the
 * partner's next manifest has the same fingerprint.
 */
export function fingerprintOf(input: ClassifyInput): string {
  const words = (s?: string) => (s ?? '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/\s+/g, ' ').trim();
  const key = JSON.stringify([words(input.description), words(input.name), words(input.category), (input.hsCode ?? '').replace(/\D/g, '')]);
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}
