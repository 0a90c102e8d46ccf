import { describe, expect, it } from 'vitest';
import { batchIdFor, chunkProgress, decisionPagesFor, decisionsPerPage, type DecisionSegment } from '#core/manifests/model';

const seg = (id: string, count: number): DecisionSegment => ({ id, runId: id, mode: 'create', at: '2026-11-21T00:00:00Z', count, counts: { create: count, update: 0, skip: 0, reject: 0 } });

describe('batch ids', () => {
  it('are the same for the same account and key, and differ otherwise', () => {
    expect(batchIdFor(1, 'k')).toBe(batchIdFor(1, 'k'));
    expect(batchIdFor(1, 'k')).not.toBe(batchIdFor(2, 'k'));
    expect(batchIdFor(1, 'k')).toMatch(/^BT[0-9A-F]{20}$/);
  });
});

describe('decision log pages', () => {
  it('map an offset range onto the stored pages of consecutive segments', () => {
    const refs = decisionPagesFor([seg('a', 3), seg('b', decisionsPerPage + 10)], 2, 5);
    expect(refs).toEqual([
      { segmentId: 'a', page: 0, from: 2, to: 3 },
      { segmentId: 'b', page: 0, from: 0, to: 4 },
    ]);
  });

  it('cross a page boundary inside a segment', () => {
    const refs = decisionPagesFor([seg('a', decisionsPerPage * 2)], decisionsPerPage - 2, 4);
    expect(refs).toEqual([
      { segmentId: 'a', page: 0, from: decisionsPerPage - 2, to: decisionsPerPage },
      { segmentId: 'a', page: 1, from: 0, to: 2 },
    ]);
  });

  it('skip empty segments and give nothing past the end', () => {
    expect(decisionPagesFor([seg('a', 0), seg('b', 2)], 0, 10)).toEqual([{ segmentId: 'b', page: 0, from: 0, to: 2 }]);
    expect(decisionPagesFor([seg('a', 2)], 5, 10)).toEqual([]);
  });
});

describe('chunk progress', () => {
  it('lists the missing chunks and rounds the percentage down', () => {
    expect(chunkProgress(3, [3])).toEqual({ received_chunks: 1, missing_chunks: [1, 2], percentage: 33, is_complete: false });
    expect(chunkProgress(2, [2, 1])).toEqual({ received_chunks: 2, missing_chunks: [], percentage: 100, is_complete: true });
  });
});
