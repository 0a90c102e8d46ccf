import type { RateAnswer } from '../customs/exchange-rate';

/**
 * The four stages of manifest processing (spec 3.3), in the spec's order (the order
 * pipeline-status lists them in), declared once. Each stage weighs the same share of the overall
 * progress.
 */
export const stageNames = ['classification', 'webservices', 'ai', 'calculations'] as const;
export type StageName = (typeof stageNames)[number];

/**
 * How a run walks the stages, declared once: the CDK state machine (lib/pipeline.ts) and the
 * twin's runner (twin/pipeline.ts) both follow it. Steps run in order, each when every stage of
 * the step before completed; the stages of one step run side by side. Tariff classification (ai)
 * reads nothing but the items (`stageInputs`), so it shares web services' step and uses the time
 * web services waits on the quota ledger (docs/partners/processing.md).
 */
export const stageSteps: readonly (readonly StageName[])[] = [['classification'], ['webservices', 'ai'], ['calculations']];

/**
 * What each stage reads besides the page: the results of these stages (of earlier steps), merged
 * per item in this order. A stage answers what it read with its own part added, so the last
 * stage's results are the item's whole result.
 */
export const stageInputs: Readonly<Record<StageName, readonly StageName[]>> = {
  classification: [],
  webservices: ['classification'],
  ai: [],
  calculations: ['webservices', 'ai'],
};

/** The stage whose results are the items' whole results (the only stage of the last step). */
export const lastStage: StageName = stageSteps[stageSteps.length - 1][0];

export const stageStatuses = ['pending', 'processing', 'completed', 'failed'] as const;
export type StageStatus = (typeof stageStatuses)[number];

export interface StageState {
  status: StageStatus;
  /** Item pages done / planned for this run. */
  done: number;
  pages: number;
}

export interface PipelineState {
  runId: string;
  stages: Record<StageName, StageState>;
  startedAt: string;
  finishedAt?: string;
  error?: string;
  /**
   * The exchange rate of the run (the business day before the day it was prepared: `rateDayFor`),
   * read once by prepare through the `ExchangeRates` port and carried here for finish, which puts
   * the amounts in pesos on every product and the summary; or why there is none. Absent for runs
   * prepared before amounts in pesos.
   */
  exchangeRate?: RateAnswer;
}

export const stageWeight = 100 / stageNames.length;

export function stageProgress(s: StageState): number {
  if (s.status === 'completed') return 100;
  if (!s.pages) return 0;
  return Math.min(99, Math.floor((s.done * 100) / s.pages));
}

/** Overall progress: 25% per stage, whole numbers, 100 only when every stage completed. */
export function overallProgress(p: PipelineState): number {
  const sum = stageNames.reduce((n, name) => n + stageProgress(p.stages[name]) * (stageWeight / 100), 0);
  const all = stageNames.every((name) => p.stages[name].status === 'completed');
  return all ? 100 : Math.min(99, Math.floor(sum));
}

/**
 * A batch's progress as the routes show it: while its current run processes, the run's overall
 * progress from the pages its stages have done (counted on the batch by each page, so it moves
 * with every page without a write of its own); else the progress stored at the last stage change
 * (0 pending, 100 completed, where it stopped when failed).
 */
export function liveProgress(b: { status: string; progress: number; lastRunId?: string; pipeline?: PipelineState }): number {
  if (b.status !== 'processing' || !b.pipeline || b.pipeline.runId !== b.lastRunId) return b.progress;
  return Math.max(b.progress, overallProgress(b.pipeline));
}

export function newPipelineState(runId: string, pages: number, at: string, exchangeRate?: RateAnswer): PipelineState {
  const stages = Object.fromEntries(stageNames.map((n) => [n, { status: 'pending', done: 0, pages }])) as Record<StageName, StageState>;
  return { runId, stages, startedAt: at, ...(exchangeRate ? { exchangeRate } : {}) };
}

/** The index in `stageSteps` of the step a stage belongs to. */
export const stepOf = (s: StageName): number => stageSteps.findIndex((step) => step.includes(s));
