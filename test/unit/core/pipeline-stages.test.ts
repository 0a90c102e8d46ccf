import { describe, expect, it } from 'vitest';
import { lastStage, stageInputs, stageNames, stageSteps, stepOf, type StageName } from '../../../lambdas/core/pipeline/stages';

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
