/**
 * The four stages of manifest processing (spec 3.3), in order, declared once: the CDK state
 * machine (lib/pipeline.ts) and the twin's runner (twin/pipeline.ts) both walk this list.
 * Each stage weighs the same share of the overall progress.
 */
export const stageNames = ['classification', 'webservices', 'ai', 'calculations'] as const;
export type StageName = (typeof stageNames)[number];

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

export function newPipelineState(runId: string, pages: number, at: string): PipelineState {
  const stages = Object.fromEntries(stageNames.map((n) => [n, { status: 'pending', done: 0, pages }])) as Record<StageName, StageState>;
  return { runId, stages, startedAt: at };
}

export const nextStage = (s: StageName): StageName | undefined => stageNames[stageNames.indexOf(s) + 1];
