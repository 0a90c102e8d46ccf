import { describe, expect, it } from 'vitest';
import { settleSeconds, viewDue, viewEvery } from '#infra/entities/orders';

describe('when a writer asks for a new order snapshot of its account', () => {
  it('asks in five minutes for the first change after the snapshot, and not for the next ones', () => {
    expect(viewDue(40, 41, 40)).toBe(settleSeconds);
    expect(viewDue(41, 42, 40)).toBeUndefined();
    expect(viewDue(40 + viewEvery - 2, 40 + viewEvery - 1, 40)).toBeUndefined();
  });

  it(`asks at once when its versions cross a multiple of ${viewEvery} past the snapshot's`, () => {
    expect(viewDue(40 + viewEvery - 1, 40 + viewEvery, 40)).toBe(0);
    expect(viewDue(40 + 2 * viewEvery - 1, 40 + 2 * viewEvery, 40)).toBe(0);
    // A bulk load of many versions at once, from the snapshot's version on: at once, not in five minutes.
    expect(viewDue(40, 40 + 3_000, 40)).toBe(0);
  });

  it("counts from version 0 for an account with no snapshot yet, so the account's first change asks", () => {
    expect(viewDue(0, 1, -1)).toBe(settleSeconds);
    expect(viewDue(1, 2, -1)).toBeUndefined();
    expect(viewDue(viewEvery - 1, viewEvery, -1)).toBe(0);
  });

  it('asks for nothing for versions the snapshot already holds (a writer that read the meta after the worker)', () => {
    expect(viewDue(30, 31, 40)).toBeUndefined();
  });
});
