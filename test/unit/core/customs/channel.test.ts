import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { customsChannel, sampleBucket, shipmentChannel, type ChannelInput } from '#core/customs/channel';
import { channelRules, type ChannelRules } from '#core/customs/channel-rules';
import { calibration } from '#core/tariff/calibration';

/** The first AWB of a numbered series whose sample bucket passes `test`. */
function awbWhere(test: (bucket: number) => boolean): string {
  for (let i = 0; i < 100_000; i++) {
    const awb = `176-${String(10_000_000 + i)}`;
    if (test(sampleBucket(awb))) return awb;
  }
  throw new Error('no such AWB');
}

const outside = awbWhere((b) => b >= 200);
const inside = awbWhere((b) => b < 200);

const clean: ChannelInput = {
  awb: outside,
  regime: 'P',
  taxIdValid: true,
  classificationConfidence: 0.95,
  fob_usd: 120,
  cif_usd: 125.2,
  prohibited: false,
};

const ids = (reasons: string[]) => reasons.map((r) => r.split(':')[0]);

describe('customs channel rules', () => {
  it('clears a clean shipment on the green channel with the default reason', () => {
    const d = customsChannel(clean);
    expect(d.channel).toBe('V');
    expect(ids(d.reasons)).toEqual(['default']);
  });

  it('sends prohibited goods to red', () => {
    expect(customsChannel({ ...clean, prohibited: true }).channel).toBe('RO');
  });

  it('sends regime X to red even when the prohibited flag is not set', () => {
    expect(ids(customsChannel({ ...clean, regime: 'X' }).reasons)[0]).toBe('prohibited');
  });

  it('sends an invalid tax id to blue', () => {
    const d = customsChannel({ ...clean, taxIdValid: false });
    expect(d).toEqual({ channel: 'A', reasons: [expect.stringMatching(/^invalid-tax-id: /)] });
  });

  it('sends a classification confidence below the calibrated threshold to blue', () => {
    expect(customsChannel({ ...clean, classificationConfidence: calibration.review_below - 0.01 }).channel).toBe('A');
  });

  it('clears a confidence of exactly the calibrated threshold', () => {
    expect(customsChannel({ ...clean, classificationConfidence: calibration.review_below }).channel).toBe('V');
  });

  it('reads the low-confidence threshold from the calibration', () => {
    expect(channelRules.find((r) => r.id === 'low-confidence')?.when).toEqual({ kind: 'confidence_below', threshold: calibration.review_below });
  });

  it('treats a missing confidence as low', () => {
    expect(customsChannel({ ...clean, classificationConfidence: Number.NaN }).channel).toBe('A');
  });

  it('sends a shipment CIF above USD 1,000 to blue', () => {
    expect(customsChannel({ ...clean, cif_usd: 1000.01 }).channel).toBe('A');
    expect(customsChannel({ ...clean, cif_usd: 1000 }).channel).toBe('V');
  });

  it('sends a shipment CIF above USD 2,500 to red', () => {
    const d = customsChannel({ ...clean, cif_usd: 2500.01 });
    expect(d.channel).toBe('RO');
    expect(d.reasons[0]).toBe('high-value: Shipment CIF above USD 2,500: physical inspection. (shipment CIF 2500.01)');
  });

  it('sends a shipment FOB above the USD 3,000 courier limit to red', () => {
    const d = customsChannel({ ...clean, fob_usd: 3000.5, cif_usd: 900 });
    expect(d.channel).toBe('RO');
    expect(ids(d.reasons)).toEqual(['over-courier-limit']);
  });

  it('sends an AWB of the sample to red', () => {
    const d = customsChannel({ ...clean, awb: inside });
    expect(d.channel).toBe('RO');
    expect(ids(d.reasons)).toEqual(['random-sample']);
  });

  it('lets the strictest matching rule decide and lists every other match after it', () => {
    const d = customsChannel({ ...clean, taxIdValid: false, classificationConfidence: 0.2, cif_usd: 2600 });
    expect(d.channel).toBe('RO');
    expect(ids(d.reasons)).toEqual(['high-value', 'invalid-tax-id', 'low-confidence', 'mid-value']);
  });

  it('reads a custom rule list in its own order', () => {
    const rules: ChannelRules = [
      { id: 'review-all-commercial', description: 'Every commercial shipment is reviewed.', channel: 'A', when: { kind: 'cif_above', usd: 0 } },
      ...channelRules,
    ];
    expect(customsChannel({ ...clean, cif_usd: 3000 }, rules).channel).toBe('A');
  });

  it('clears on green when no rule of a list matches', () => {
    expect(customsChannel(clean, [{ id: 'x', description: 'x', channel: 'RO', when: { kind: 'prohibited' } }])).toEqual({
      channel: 'V',
      reasons: ['no channel rule matched: automatic clearance'],
    });
  });

  it('refuses a rule list with a repeated id or an impossible sample', () => {
    expect(() => customsChannel(clean, [...channelRules, channelRules[0]])).toThrow(RangeError);
    expect(() => customsChannel(clean, [{ id: 's', description: 's', channel: 'RO', when: { kind: 'sample', basis_points: 20_000 } }])).toThrow(
      RangeError,
    );
  });
});

describe('the deterministic sample', () => {
  it('gives the same AWB the same bucket every time', () => {
    expect(sampleBucket(inside)).toBe(sampleBucket(inside));
    expect(customsChannel({ ...clean, awb: inside })).toEqual(customsChannel({ ...clean, awb: inside }));
  });

  it('ignores case and surrounding whitespace of the AWB', () => {
    expect(sampleBucket('  abc 123 ')).toBe(sampleBucket('ABC123'));
  });

  it('is sha256 of the AWB as an integer mod 10,000', () => {
    // sha256("176-10000000") read as one big integer, mod 10000, computed independently of the module
    const hex = createHash('sha256').update('176-10000000').digest('hex');
    expect(sampleBucket('176-10000000')).toBe(Number(BigInt(`0x${hex}`) % 10000n));
  });

  it('draws about 2% of 10,000 AWBs', () => {
    let hits = 0;
    for (let i = 0; i < 10_000; i++) {
      if (customsChannel({ ...clean, awb: `999-${String(i).padStart(8, '0')}` }).channel === 'RO') hits++;
    }
    // binomial(10000, 0.02): mean 200, standard deviation 14
    expect(hits).toBeGreaterThanOrEqual(158);
    expect(hits).toBeLessThanOrEqual(242);
  });

  it('draws a different sample under another salt', () => {
    const salted: ChannelRules = [{ id: 's', description: 's', channel: 'RO', when: { kind: 'sample', basis_points: 200, salt: '2026-Q1' } }];
    const awbs = Array.from({ length: 2000 }, (_, i) => `176-${20_000_000 + i}`);
    const plain = awbs.filter((a) => sampleBucket(a) < 200);
    const other = awbs.filter((a) => customsChannel({ ...clean, awb: a }, salted).channel === 'RO');
    expect(other).not.toEqual(plain);
    expect(other.length).toBeGreaterThan(0);
  });
});

describe('the channel of a whole shipment', () => {
  it('takes the strictest channel of its products', () => {
    const v = customsChannel(clean);
    const a = customsChannel({ ...clean, taxIdValid: false });
    const ro = customsChannel({ ...clean, prohibited: true });
    expect(shipmentChannel([v, a]).channel).toBe('A');
    expect(shipmentChannel([a, ro, v]).channel).toBe('RO');
  });

  it('lists the reasons of the strictest products first, once each, without the green default', () => {
    const a = customsChannel({ ...clean, taxIdValid: false });
    const ro = customsChannel({ ...clean, prohibited: true, taxIdValid: false });
    const d = shipmentChannel([a, customsChannel(clean), ro, a]);
    expect(ids(d.reasons)).toEqual(['prohibited', 'invalid-tax-id']);
  });

  it('stays green with the default reason when every product is green', () => {
    expect(shipmentChannel([customsChannel(clean), customsChannel(clean)])).toEqual(customsChannel(clean));
  });
});
