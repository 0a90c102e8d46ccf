import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { keyItems, resolveItems } from '#core/manifests/resolve';
import { ManifestItem } from '#core/manifests/submission';
import { item } from '#support/manifests';

const ctx = { accountId: 7, manifestNumber: 'M1', batchId: 'BT1' };
const run = { accountId: 7, batchId: 'BT1', runId: 'run-2', at: '2026-11-21T10:00:00.000Z' };
const parsed = (i: number, over = {}) => v.parse(ManifestItem, item(i, over));

describe('resolving a payload against the batch', () => {
  it('writes only CREATE and UPDATE items, with the run that wrote them', () => {
    const keyed = keyItems([parsed(1), parsed(2, { fobValueUsd: 99 }), parsed(3)], ctx);
    const existing = new Map([
      ['line-1', { hash: keyed[0].hash, runId: 'run-1', decision: 'CREATE' as const, createdAt: 'x' }],
      ['line-2', { hash: 'old', runId: 'run-1', decision: 'CREATE' as const, createdAt: 'first' }],
    ]);
    const r = resolveItems(keyed, run, existing);
    expect(r.entries.map((e) => e[3])).toEqual(['SKIP', 'UPDATE', 'CREATE']);
    expect(r.writes.map((w) => [w.itemKey, w.decision, w.runId])).toEqual([
      ['line-2', 'UPDATE', 'run-2'],
      ['line-3', 'CREATE', 'run-2'],
    ]);
    expect(r.writes[0].createdAt).toBe('first');
  });

  it('repeats the first decision for records this same run already wrote (a retried submission)', () => {
    const keyed = keyItems([parsed(2, { fobValueUsd: 99 })], ctx);
    const existing = new Map([['line-2', { hash: keyed[0].hash, runId: 'run-2', decision: 'UPDATE' as const, createdAt: 'first' }]]);
    const r = resolveItems(keyed, run, existing);
    expect(r.entries[0]).toEqual([0, 'line-2', 'AWB0000002', 'UPDATE', 'payload changed']);
    expect(r.writes).toHaveLength(1);
  });

  it('rejects a new item whose AWB another team holds, but not an item already in the batch', () => {
    const keyed = keyItems([parsed(1), parsed(2)], ctx);
    const existing = new Map([['line-1', { hash: 'old', runId: 'run-1', decision: 'CREATE' as const, createdAt: 'x' }]]);
    const r = resolveItems(keyed, run, existing, new Set(['AWB0000001', 'AWB0000002']));
    expect(r.entries.map((e) => [e[3], e[4]])).toEqual([
      ['UPDATE', 'payload changed'],
      ['REJECT', 'AWB belongs to another team'],
    ]);
  });

  it('rejects the second line with the same item key in one payload', () => {
    const keyed = keyItems([parsed(1), parsed(5, { itemIdempotencyKey: 'line-1' })], ctx);
    const r = resolveItems(keyed, run, new Map());
    expect(r.counts).toEqual({ create: 1, update: 0, skip: 0, reject: 1 });
    expect(r.newAwbs).toBe(1);
  });
});
