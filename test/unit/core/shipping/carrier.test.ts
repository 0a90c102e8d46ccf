import { afterEach, describe, expect, it } from 'vitest';
import { deliveryEstimate, isValidTrackingNumber, trackingNumberFor } from '#core/shipping/carrier';
import { builtinCarrier, carrierFor, carrierNames } from '#infra/carriers';
import { ValidationFailed } from '#core/errors';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { prng } from '#twin/prng';

// Luhn worked by hand. 0000000042: 2 doubled = 4, plus 4 = 8; 10 - 8 = 2.
// 7992739871 (the textbook example): 1*2=2, 7, 8*2=16->7, 9, 3*2=6, 7, 2*2=4, 9, 9*2=18->9, 7 = 67; 10 - 7 = 3.

describe('tracking numbers of the built-in carrier', () => {
  it('are DSP, the shipment id in 10 digits and its Luhn check digit', () => {
    expect(trackingNumberFor(42)).toBe('DSP00000000422');
    expect(trackingNumberFor(7992739871)).toBe('DSP79927398713');
  });

  it('are the same for the same shipment every time', async () => {
    const first = await builtinCarrier.issueTracking({ shipmentId: 1234, service: 'standard', accountId: 1 });
    const again = await builtinCarrier.issueTracking({ shipmentId: 1234, service: 'express', accountId: 2 });
    expect(again.trackingNumber).toBe(first.trackingNumber);
    expect(first.trackingNumber).toBe(trackingNumberFor(1234));
  });

  it('pass the check digit test when issued', () => {
    const random = prng(7);
    for (let i = 0; i < 1000; i++) {
      const id = 1 + Math.floor(random() * 9_999_999_999);
      expect(isValidTrackingNumber(trackingNumberFor(id))).toBe(true);
    }
  });

  it('fail the check digit test with any one digit changed', () => {
    const good = trackingNumberFor(7992739871);
    for (let pos = 3; pos < good.length; pos++) {
      for (let d = 0; d <= 9; d++) {
        if (String(d) === good[pos]) continue;
        expect(isValidTrackingNumber(good.slice(0, pos) + d + good.slice(pos + 1))).toBe(false);
      }
    }
  });

  it('fail the check digit test with two different adjacent digits swapped, other than 0 and 9', () => {
    const random = prng(11);
    let swaps = 0;
    for (let i = 0; i < 300; i++) {
      const good = trackingNumberFor(1 + Math.floor(random() * 9_999_999_999));
      for (let pos = 3; pos < good.length - 1; pos++) {
        const [a, b] = [good[pos], good[pos + 1]];
        if (a === b || a + b === '09' || a + b === '90') continue;
        swaps++;
        expect(isValidTrackingNumber(good.slice(0, pos) + b + a + good.slice(pos + 2))).toBe(false);
      }
    }
    expect(swaps).toBeGreaterThan(2000);
  });

  it('fail the test in any other shape: lower case, spaces, another prefix or length, shipment 0', () => {
    for (const s of ['dsp00000000422', 'DSP 00000000422', ' DSP00000000422', 'DSX00000000422', 'DSP0000000042', 'DSP000000004220', 'DSP00000000000', '']) {
      expect(isValidTrackingNumber(s)).toBe(false);
    }
  });

  it('are refused for a shipment id that 10 digits cannot hold', () => {
    for (const id of [0, -1, 1.5, 10_000_000_000, Number.NaN]) {
      expect(() => trackingNumberFor(id)).toThrow(RangeError);
    }
  });
});

describe('delivery estimates', () => {
  afterEach(() => useSystemClock());

  it('count business days from the day after shipping', () => {
    expect(deliveryEstimate(new Date('2026-03-16T15:00:00Z'), 2)).toBe('2026-03-18'); // Monday -> Wednesday
  });

  it('skip the weekend', () => {
    expect(deliveryEstimate(new Date('2026-03-12T15:00:00Z'), 2)).toBe('2026-03-16'); // Thursday -> Monday
    expect(deliveryEstimate(new Date('2026-03-13T15:00:00Z'), 5)).toBe('2026-03-20'); // Friday -> next Friday
    expect(deliveryEstimate(new Date('2026-03-13T15:00:00Z'), 8)).toBe('2026-03-25'); // Friday -> Wednesday week after
  });

  it('start a weekend shipment on Monday', () => {
    expect(deliveryEstimate(new Date('2026-03-14T15:00:00Z'), 2)).toBe('2026-03-17'); // Saturday -> Tuesday
    expect(deliveryEstimate(new Date('2026-03-15T15:00:00Z'), 1)).toBe('2026-03-16'); // Sunday -> Monday
  });

  it('read the shipping day on the Argentine calendar', () => {
    // 01:00 UTC on Friday is 22:00 on Thursday in Buenos Aires: one day later is Friday, not Monday.
    expect(deliveryEstimate(new Date('2026-03-13T01:00:00Z'), 1)).toBe('2026-03-13');
    expect(deliveryEstimate(new Date('2026-03-13T03:00:00Z'), 1)).toBe('2026-03-16');
  });

  it('come from the clock and the service: express 2, standard 5, economy 8 business days', async () => {
    useClock(manualClock(new Date('2026-03-16T12:00:00Z'))); // Monday
    const issue = (service: string) => builtinCarrier.issueTracking({ shipmentId: 9, service, accountId: 1 }).then((t) => t.estimatedDelivery);
    expect(await issue('express')).toBe('2026-03-18');
    expect(await issue('standard')).toBe('2026-03-23');
    expect(await issue('economy')).toBe('2026-03-26');
  });

  it('are refused for a service the carrier does not offer, as a 422 naming service', async () => {
    const failure = await builtinCarrier.issueTracking({ shipmentId: 9, service: 'overnight', accountId: 1 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ValidationFailed);
    expect((failure as ValidationFailed).status).toBe(422);
    expect((failure as ValidationFailed).errors).toEqual({ service: ['despacho offers express, standard, economy'] });
  });
});

describe('the carrier registry', () => {
  it('has the built-in carrier under despacho, with its services, and the four external carriers (issue 18)', () => {
    expect(carrierFor('despacho')).toBe(builtinCarrier);
    expect(builtinCarrier.services).toEqual(['express', 'standard', 'economy']);
    expect(carrierNames).toEqual(['despacho', 'fedex', 'ups', 'dhl', 'usps']);
    expect(carrierFor('dhl')?.services).toContain('express_worldwide');
  });

  it('knows no carrier it has no adapter for, and no other spelling', () => {
    for (const name of ['correo-argentino', 'FEDEX', 'Despacho', ' despacho', 'constructor', 'toString', '']) {
      expect(carrierFor(name)).toBeUndefined();
    }
  });
});
