/**
 * The customs channel (V / A / RO) of a product and of a whole shipment, from the explicit risk
 * rules of channel-rules.ts. Pure and deterministic: the sample is a hash of the AWB, not a random
 * draw, so the same input gives the same channel every time.
 */
import { createHash } from 'node:crypto';
import type { Channel, ChannelCondition, ChannelRule, ChannelRules } from './channel-rules';
import { channelRules } from './channel-rules';
import { decCompare, formatCents, parseDec, toCents } from './money';
import type { Regime } from './calculate';

export type { Channel, ChannelRules } from './channel-rules';

export type ChannelInput = {
  awb: string;
  regime: Regime;
  taxIdValid: boolean;
  /** The tariff classification's confidence, 0 to 1. */
  classificationConfidence: number;
  /** FOB of the whole shipment (AWB), USD: value thresholds are per shipment. */
  fob_usd: number;
  /** CIF of the whole shipment (AWB), USD (`totals.cif` of `calculateShipment`). */
  cif_usd: number;
  prohibited: boolean;
};

export type ChannelDecision = {
  channel: Channel;
  /** `<rule id>: <description>` of every rule that matched, the deciding rule first. */
  reasons: string[];
};

const strictness: Record<Channel, number> = { V: 0, A: 1, RO: 2 };

/** The AWB as the sample hashes it: trimmed, inner whitespace removed, upper case. */
export const normalizeAwb = (awb: string): string => awb.trim().replace(/\s+/g, '').toUpperCase();

/** The AWB's sample bucket, 0 to 9,999: sha256 of `salt:AWB` (or of the AWB) as an integer, mod 10,000. */
export function sampleBucket(awb: string, salt?: string): number {
  const text = salt === undefined ? normalizeAwb(awb) : `${salt}:${normalizeAwb(awb)}`;
  const hex = createHash('sha256').update(text, 'utf8').digest('hex');
  return Number(BigInt('0x' + hex) % 10_000n);
}

function checkRules(rules: ChannelRules): void {
  const ids = new Set<string>();
  for (const r of rules) {
    if (!r.id || ids.has(r.id)) throw new RangeError(`channel rules: missing or repeated id ${JSON.stringify(r.id)}`);
    ids.add(r.id);
    if (!(r.channel in strictness)) throw new RangeError(`channel rule ${r.id}: unknown channel ${JSON.stringify(r.channel)}`);
    const w = r.when;
    switch (w.kind) {
      case 'confidence_below':
        if (!(w.threshold >= 0 && w.threshold <= 1)) throw new RangeError(`channel rule ${r.id}: threshold must be 0-1`);
        break;
      case 'fob_above':
      case 'cif_above':
        if (!(Number.isFinite(w.usd) && w.usd >= 0)) throw new RangeError(`channel rule ${r.id}: usd must be >= 0`);
        break;
      case 'sample':
        if (!(Number.isInteger(w.basis_points) && w.basis_points >= 0 && w.basis_points <= 10_000)) {
          throw new RangeError(`channel rule ${r.id}: basis_points must be an integer 0-10000`);
        }
        break;
      case 'prohibited':
      case 'tax_id_invalid':
      case 'always':
        break;
      default:
        throw new RangeError(`channel rule ${r.id}: unknown condition ${JSON.stringify((w as { kind: unknown }).kind)}`);
    }
  }
}

const above = (value: number, limit: number): boolean =>
  Number.isFinite(value) && decCompare(parseDec(value), parseDec(limit)) > 0;

/** Whether the condition holds, and the input's value that made it hold (for the reason). */
function matches(when: ChannelCondition, input: ChannelInput): string | null {
  switch (when.kind) {
    case 'prohibited':
      return input.prohibited || input.regime === 'X' ? 'regime X' : null;
    case 'tax_id_invalid':
      return input.taxIdValid ? null : 'tax id invalid';
    case 'confidence_below': {
      const c = input.classificationConfidence;
      const value = typeof c === 'number' && Number.isFinite(c) ? c : 0;
      return value < when.threshold ? `confidence ${value}` : null;
    }
    case 'fob_above':
      return above(input.fob_usd, when.usd) ? `shipment FOB ${formatCents(toCents(input.fob_usd))}` : null;
    case 'cif_above':
      return above(input.cif_usd, when.usd) ? `shipment CIF ${formatCents(toCents(input.cif_usd))}` : null;
    case 'sample': {
      const bucket = sampleBucket(input.awb, when.salt);
      return bucket < when.basis_points ? `AWB bucket ${bucket} of 10000` : null;
    }
    case 'always':
      return '';
  }
}

const reason = (rule: ChannelRule, detail: string) => `${rule.id}: ${rule.description}${detail ? ` (${detail})` : ''}`;

/**
 * The channel of one product: the first rule (in list order) that matches decides. Reasons list
 * every matching rule, the deciding one first; a rule that always matches (the default) is listed
 * only when it decides. With no matching rule at all the channel is V.
 */
export function customsChannel(input: ChannelInput, rules: ChannelRules = channelRules): ChannelDecision {
  checkRules(rules);
  let channel: Channel | null = null;
  const reasons: string[] = [];
  for (const rule of rules) {
    const detail = matches(rule.when, input);
    if (detail === null) continue;
    if (channel === null) {
      channel = rule.channel;
      reasons.push(reason(rule, detail));
    } else if (rule.when.kind !== 'always') {
      reasons.push(reason(rule, detail));
    }
  }
  return channel === null ? { channel: 'V', reasons: ['no channel rule matched: automatic clearance'] } : { channel, reasons };
}

/**
 * One channel for a whole AWB, the same for all its products: the strictest of the products'
 * channels (RO over A over V). Reasons: those of the products with a channel other than V, the
 * strictest first, without repeats; when every product is V, theirs. No products: V.
 */
export function shipmentChannel(decisions: readonly ChannelDecision[]): ChannelDecision {
  let channel: Channel = 'V';
  for (const d of decisions) if (strictness[d.channel] > strictness[channel]) channel = d.channel;
  const ordered = [...decisions].sort((a, b) => strictness[b.channel] - strictness[a.channel]);
  const counted = channel === 'V' ? ordered : ordered.filter((d) => d.channel !== 'V');
  const reasons = [...new Set(counted.flatMap((d) => d.reasons))];
  return { channel, reasons: reasons.length ? reasons : ['no products: automatic clearance'] };
}
