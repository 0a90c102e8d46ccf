import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../dynamo';
import { isConditionalFailure, type TransactPut, type TransactUpdate } from './entity';
import { pesosWaits } from './pesos-waits/pesos-wait';
import { pesosWaitDays } from './pesos-waits/pesos-wait-day';

/** What finish keeps of a batch that completed waiting for the rate of `date`. */
export interface PesosWait {
  date: string;
  batchId: string;
  accountId: number;
  runId: string;
  at: string;
}

/** A day some batch waited for, and how many waits were written on it (the retry's check). */
export interface PesosWaitDay {
  date: string;
  waits: number;
}

/**
 * Keeps that the batch waits for the rate of `date` (a repeated finish writes the same item), and
 * that the day has a batch waiting, in one transaction: the scheduled retry never sees a wait
 * without its day, nor forgets a day while a wait is being written on it.
 */
export async function putPesosWait(w: PesosWait): Promise<void> {
  const wait = pesosWaits().put(w).params<TransactPut>();
  const day = pesosWaitDays().update({ date: w.date }).add({ waits: 1 }).params<TransactUpdate>();
  await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Put: wait }, { Update: day }] }));
}

/** The batches waiting for the rate of `date`. */
export async function pesosWaitsOn(date: string): Promise<PesosWait[]> {
  const res = await pesosWaits().query.byDay({ date }).go({ pages: 'all', consistent: true });
  return res.data.map((d) => ({ date: d.date, batchId: d.batchId, accountId: d.accountId, runId: d.runId, at: d.at }));
}

/** The batch no longer waits for that day's rate. */
export async function deletePesosWait(date: string, batchId: string): Promise<void> {
  await pesosWaits().delete({ date, batchId }).go();
}

/** The days some batch waited for (and may still), in date order: one item each, however many batches. */
export async function pesosWaitDaysAll(): Promise<PesosWaitDay[]> {
  const res = await pesosWaitDays().query.all({}).go({ pages: 'all', consistent: true });
  return res.data.map((d) => ({ date: d.date, waits: d.waits }));
}

/**
 * Forgets a day no batch waits for any more, only while no wait was written on it since `seen`
 * was read (a conditional delete); false when one was, so the day stays for the next retry.
 */
export async function forgetPesosWaitDay(day: PesosWaitDay): Promise<boolean> {
  try {
    await pesosWaitDays().delete({ date: day.date }).where(({ waits }, { eq }) => eq(waits, day.waits)).go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}
