import { pesosWaits } from './pesos-waits/pesos-wait';

/** What finish keeps of a batch that completed waiting for the rate of `date`. */
export interface PesosWait {
  date: string;
  batchId: string;
  accountId: number;
  runId: string;
  at: string;
}

/** Keeps that the batch waits for the rate of `date` (a repeated finish writes the same item). */
export async function putPesosWait(w: PesosWait): Promise<void> {
  await pesosWaits().put(w).go();
}

/** The batches waiting for the rate of `date`. */
export async function pesosWaitsOn(date: string): Promise<PesosWait[]> {
  const res = await pesosWaits().query.byDay({ date }).go({ pages: 'all' });
  return res.data.map((d) => ({ date: d.date, batchId: d.batchId, accountId: d.accountId, runId: d.runId, at: d.at }));
}

/** The batch no longer waits for that day's rate. */
export async function deletePesosWait(date: string, batchId: string): Promise<void> {
  await pesosWaits().delete({ date, batchId }).go();
}
