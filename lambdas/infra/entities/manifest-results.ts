import { defineEntity, service } from './entity';
import { batchWriteAll } from '../batch-write';
import type { ProcessedResult } from '../../core/manifests/model';
import type { ProductFields } from '../../core/manifests/views';

/**
 * A processed item's customs results, beside the item in the batch's partition. Intake never
 * writes these and the pipeline never writes items, so a submission that changes an item while
 * a run is processing it can never be overwritten by that run (its result names the run and the
 * item hash it was computed from).
 */
const results = defineEntity({
  model: { entity: 'manifestResult', version: '1', service },
  attributes: {
    batchId: { type: 'string', required: true },
    itemKey: { type: 'string', required: true },
    awb: { type: 'string', required: true },
    runId: { type: 'string', required: true },
    hash: { type: 'string', required: true },
    /** The item fields a result is shown with, as the run saw them (the download reads results alone). */
    item: { type: 'any', required: true },
    result: { type: 'any', required: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byBatch: {
      pk: { field: 'pk', composite: ['batchId'], template: 'BATCH#${batchId}', casing: 'none' },
      sk: { field: 'sk', composite: ['itemKey'], template: 'RESULT#${itemKey}', casing: 'none' },
    },
  },
} as const);

export interface ResultRecord {
  batchId: string;
  itemKey: string;
  awb: string;
  runId: string;
  hash: string;
  item: ProductFields;
  result: ProcessedResult;
  updatedAt: string;
}

export async function putResults(records: readonly ResultRecord[]): Promise<void> {
  function* requests() {
    for (let i = 0; i < records.length; i += 25) yield* results().put(records.slice(i, i + 25) as ResultRecord[]).params<{ RequestItems: never }[]>();
  }
  await batchWriteAll(requests());
}

/** Every result of a batch, in item-key order. */
export async function listResults(batchId: string): Promise<ResultRecord[]> {
  const res = await results().query.byBatch({ batchId }).go({ pages: 'all' });
  return res.data as ResultRecord[];
}

export async function getResults(batchId: string, itemKeys: readonly string[]): Promise<Map<string, ResultRecord>> {
  const out = new Map<string, ResultRecord>();
  for (let i = 0; i < itemKeys.length; i += 100) {
    const res = await results()
      .get(itemKeys.slice(i, i + 100).map((itemKey) => ({ batchId, itemKey })))
      .go({ concurrency: 4 });
    for (const r of res.data) out.set(r.itemKey, r as ResultRecord);
  }
  return out;
}
