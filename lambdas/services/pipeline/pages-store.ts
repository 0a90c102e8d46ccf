import { blobs } from '#infra/blobs';
import type { ManifestItem } from '#core/manifests/submission';
import type { ProcessedResult } from '#core/manifests/model';
import type { StageName } from '#core/pipeline/stages';

/**
 * The run's working set in storage: the items of each page as the run saw them, and what each
 * stage added to them. Stages read the page and the previous stage's output, and write their
 * own, so every stage is re-runnable and no stage depends on a Lambda's memory.
 */
export interface PageItem {
  itemKey: string;
  awb: string;
  hash: string;
  runId: string;
  data: ManifestItem;
}

const base = (batchId: string, runId: string) => `pipeline/${batchId}/${runId}`;

async function putJson(key: string, value: unknown): Promise<void> {
  await blobs().put(key, Buffer.from(JSON.stringify(value)), 'application/json');
}

async function getJson<T>(key: string): Promise<T> {
  const body = await blobs().get(key);
  if (!body) throw new Error(`pipeline page missing: ${key}`);
  return JSON.parse(body.toString('utf8')) as T;
}

/**
 * The items a create-mode segment (a whole submission, or one chunk) wrote, as intake wrote them:
 * the first run of a new batch plans its pages from these instead of reading every item back
 * from the table (see `prepare`). Written before the items and the segment record, so a recorded
 * segment always has its file; a repeated write puts the same content.
 */
const intakeKey = (batchId: string, runId: string, segmentId: string) => `${base(batchId, runId)}/intake/${encodeURIComponent(segmentId)}.json`;
export const putIntakeItems = (batchId: string, runId: string, segmentId: string, items: PageItem[]) => putJson(intakeKey(batchId, runId, segmentId), items);
/** The segment's items as intake wrote them, or undefined when its file is missing. */
export async function getIntakeItems(batchId: string, runId: string, segmentId: string): Promise<PageItem[] | undefined> {
  const body = await blobs().get(intakeKey(batchId, runId, segmentId));
  return body ? (JSON.parse(body.toString('utf8')) as PageItem[]) : undefined;
}

export const putPage = (batchId: string, runId: string, page: number, items: PageItem[]) => putJson(`${base(batchId, runId)}/page-${page}.json`, items);
export const getPage = (batchId: string, runId: string, page: number) => getJson<PageItem[]>(`${base(batchId, runId)}/page-${page}.json`);

/** Each item's results so far, by item key. */
export type StageOutput = Record<string, ProcessedResult>;

export const putStageOutput = (batchId: string, runId: string, stage: StageName, page: number, out: StageOutput) =>
  putJson(`${base(batchId, runId)}/${stage}-${page}.json`, out);
export const getStageOutput = (batchId: string, runId: string, stage: StageName, page: number) => getJson<StageOutput>(`${base(batchId, runId)}/${stage}-${page}.json`);
