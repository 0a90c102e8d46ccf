/**
 * The customs channel's risk rules, as data an operator can read (domain/customs-ar.md, "Regimes and
 * channels"). `customsChannel` reads them in order and the first rule that matches decides the
 * channel, so the rules are listed strictest first: every red (RO) rule, then every blue (A) rule,
 * then green (V) for the rest. Every other rule that matches is reported too, as a further reason.
 *
 * Values are per shipment (AWB): pass the shipment's FOB and CIF with each of its products.
 */

import { calibration } from '../tariff/calibration';

/** `V` verde (automatic clearance), `A` azul (document review), `RO` rojo (physical inspection). */
export type Channel = 'V' | 'A' | 'RO';

/** When a rule matches. */
export type ChannelCondition =
  /** The product is prohibited (regime X). */
  | { kind: 'prohibited' }
  /** The consignee's tax id failed validation. */
  | { kind: 'tax_id_invalid' }
  /** The tariff classification's confidence (0-1) is below `threshold` (a missing confidence counts as 0). */
  | { kind: 'confidence_below'; threshold: number }
  /** The shipment's FOB is above `usd`. */
  | { kind: 'fob_above'; usd: number }
  /** The shipment's CIF is above `usd`. */
  | { kind: 'cif_above'; usd: number }
  /**
   * A deterministic random sample: the AWB's bucket (sha256 of `salt:AWB`, or of the AWB without a
   * salt, as an integer mod 10,000) is below `basis_points` (200 = 2%). The same AWB always gets the
   * same answer; a new salt draws a new sample.
   */
  | { kind: 'sample'; basis_points: number; salt?: string }
  /** Always: the default at the end of the list. */
  | { kind: 'always' };

export type ChannelRule = {
  /** Stable id, reported with the reason. */
  readonly id: string;
  /** What the rule means, for the operator. */
  readonly description: string;
  readonly channel: Channel;
  readonly when: ChannelCondition;
};

export type ChannelRules = readonly ChannelRule[];

export const channelRules: ChannelRules = [
  {
    id: 'prohibited',
    description: 'Prohibited goods (regime X) are never cleared: physical inspection.',
    channel: 'RO',
    when: { kind: 'prohibited' },
  },
  {
    id: 'over-courier-limit',
    description: 'Shipment FOB above USD 3,000, the courier regime limit (Decreto 1065/2024): physical inspection.',
    channel: 'RO',
    when: { kind: 'fob_above', usd: 3000 },
  },
  {
    id: 'high-value',
    description: 'Shipment CIF above USD 2,500: physical inspection.',
    channel: 'RO',
    when: { kind: 'cif_above', usd: 2500 },
  },
  {
    id: 'random-sample',
    description: 'Deterministic random sample of 2% of AWBs (by a hash of the AWB): physical inspection.',
    channel: 'RO',
    when: { kind: 'sample', basis_points: 200 },
  },
  {
    id: 'invalid-tax-id',
    description: "The consignee's tax id (CUIT, CUIL or DNI) is missing or invalid: document review.",
    channel: 'A',
    when: { kind: 'tax_id_invalid' },
  },
  {
    id: 'low-confidence',
    // The threshold is the classifier's calibration (`npm run eval:classify -- --write`), not a guess.
    description: `Tariff classification confidence below ${calibration.review_below} (the classifier's calibration): document review of the NCM code.`,
    channel: 'A',
    when: { kind: 'confidence_below', threshold: calibration.review_below },
  },
  {
    id: 'mid-value',
    description: 'Shipment CIF above USD 1,000: document review.',
    channel: 'A',
    when: { kind: 'cif_above', usd: 1000 },
  },
  {
    id: 'default',
    description: 'No risk rule applies: automatic clearance.',
    channel: 'V',
    when: { kind: 'always' },
  },
];
