import { describe, expect, it } from 'vitest';
import { lastStage, liveProgress, newPipelineState, stageInputs, stageNames, stageSteps, stepOf, type StageName } from '#core/pipeline/stages';

describe('the pipeline steps', () => {
  it('runs every stage in exactly one step', () => {
    expect(stageSteps.flat().sort()).toEqual([...stageNames].sort());
    for (const stage of stageNames) expect(stageSteps[stepOf(stage)]).toContain(stage);
  });

  it('reads only results of stages of earlier steps', () => {
    for (const stage of stageNames) for (const input of stageInputs[stage]) expect(stepOf(input), `${stage} reads ${input}`).toBeLessThan(stepOf(stage));
  });

  it('ends with one stage whose results, through what it reads, hold every stage', () => {
    expect(stageSteps.at(-1)).toEqual([lastStage]);
    const reached = new Set<StageName>();
    const visit = (s: StageName) => {
      reached.add(s);
      stageInputs[s].forEach(visit);
    };
    visit(lastStage);
    expect([...reached].sort()).toEqual([...stageNames].sort());
  });

  it('runs classification, then web services beside ai, then calculations', () => {
    expect(stageSteps).toEqual([['classification'], ['webservices', 'ai'], ['calculations']]);
    expect(stageInputs.webservices).toEqual(['classification']);
    expect(stageInputs.ai).toEqual([]);
  });
});

describe('a batch\'s progress as the routes show it', () => {
  const processing = (done: Partial<Record<StageName, number>>, completed: StageName[] = []) => {
    const pipeline = newPipelineState('run-1', 20, '2026-11-24T00:00:00.000Z');
    for (const [stage, n] of Object.entries(done)) pipeline.stages[stage as StageName].done = n;
    for (const stage of completed) pipeline.stages[stage].status = 'completed';
    return { status: 'processing', progress: 0, lastRunId: 'run-1', pipeline };
  };

  it('moves with every page its current run has done, without a write of its own', () => {
    expect(liveProgress(processing({}))).toBe(0);
    expect(liveProgress(processing({ classification: 10 }))).toBe(12);
    expect(liveProgress(processing({ classification: 20 }, ['classification']))).toBe(25);
    expect(liveProgress(processing({ classification: 20, webservices: 10, ai: 20 }, ['classification']))).toBe(62);
    expect(liveProgress(processing({ classification: 20, webservices: 20, ai: 20, calculations: 20 }, ['classification', 'webservices', 'ai']))).toBe(99);
  });

  it('never goes below what was stored, and is the stored figure outside a processing run', () => {
    expect(liveProgress({ ...processing({ classification: 2 }), progress: 25 })).toBe(25);
    expect(liveProgress({ ...processing({ classification: 20 }), status: 'completed', progress: 100 })).toBe(100);
    expect(liveProgress({ ...processing({ classification: 20 }), status: 'failed', progress: 30 })).toBe(30);
    expect(liveProgress({ ...processing({ classification: 20 }), status: 'pending', progress: 0 })).toBe(0);
    // A newer run started (the batch's lastRunId moved on): the old run's counts say nothing.
    expect(liveProgress({ ...processing({ classification: 20 }), lastRunId: 'run-2' })).toBe(0);
  });
});
