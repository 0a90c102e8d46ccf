import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useTwin } from '#support/twin';
import { freshCuil, item, manifest, submitForBatch } from '#support/manifests';
import { rateDayFor } from '#core/customs/exchange-rate';
import { manifestReprocessRequestedEvent } from '#core/pipeline/events';
import { events, useEvents, type DomainEvent } from '#infra/events';
import { getStoredRate } from '#infra/entities/exchange-rates';
import { forgetPesosWaitDay, pesosWaitDaysAll, pesosWaitsOn, putPesosWait } from '#infra/entities/pesos-waits';
import { BcraExchangeRates } from '#infra/exchange-rates/bcra';
import { officialExchangeRates } from '#infra/exchange-rates/port';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { handOverGraceMinutes, retryMissingRates } from '#services/customs/exchange-rates';

/**
 * The scheduled retry of missing exchange rates (issue 44; docs/operators/exchange-rates.md): for
 * every day batches wait for, the BCRA asked again (here a real HTTP server on loopback, answering
 * in the shape the adapter reads), the rate stored once (source `bcra`) and the batches handed over
 * as setting the rate does. The twin has no official source: its ticks never call the internet.
 */
const t = useTwin();
const rateDay = rateDayFor(new Date());

/** The days the BCRA answers, and the days it was asked for. */
const quotes = new Map<string, string>();
const asked: string[] = [];
let server: Server;
let bcra: BcraExchangeRates;

beforeAll(async () => {
  server = createServer((req, res) => {
    const day = new URL(req.url ?? '/', 'http://x').searchParams.get('fechadesde') ?? '';
    asked.push(day);
    const quote = quotes.get(day);
    if (!quote) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":404,"errorMessages":["No se encontraron cotizaciones"]}');
    const body = { status: 200, metadata: { resultset: { count: 1, offset: 0, limit: 1000 } }, results: [{ fecha: day, detalle: [{ codigoMoneda: 'USD', descripcion: 'DOLAR E.E.U.U.', tipoPase: 1, tipoCotizacion: Number(quote) }] }] };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  bcra = new BcraExchangeRates(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/**
 * Records the pesos hand-overs for `day` published while `fn` runs, passing every event on to the
 * twin (the made-up batches below never complete, so their days stay waiting through later tests).
 */
async function handOvers(day: string, fn: () => Promise<unknown>): Promise<{ batchId: string; day: string }[]> {
  const inner = events();
  const seen: DomainEvent[] = [];
  useEvents({ publish: async (batch) => (seen.push(...batch), inner.publish(batch)) });
  try {
    await fn();
  } finally {
    useEvents(inner);
  }
  return seen
    .filter((e) => e.type === manifestReprocessRequestedEvent && (e.data as { rate_day?: string }).rate_day === day)
    .map((e) => ({ batchId: (e.data as { batch_id: string }).batch_id, day: (e.data as { rate_day: string }).rate_day }));
}

/** The batches submitted here, each completed waiting for the rate of `rateDay`. */
const submitted: { token: string; batchId: string }[] = [];

async function waitingBatch(name: string) {
  const { token } = await t.account(name);
  const batchId = await submitForBatch(t, token, manifest(0, { items: [item(1, { itemDescription: 'Cotton t-shirt', fobValueUsd: 20.37, consigneeIdNumber: freshCuil() })] }));
  await t.settle();
  submitted.push({ token, batchId });
  return { token, batchId };
}

/** The retry as it runs once the hand-over grace of the rates stored so far has passed. */
async function retryLater(official: BcraExchangeRates | null) {
  useClock(manualClock(new Date(Date.now() + (handOverGraceMinutes + 1) * 60_000)));
  try {
    return await retryMissingRates(official);
  } finally {
    useSystemClock();
  }
}

const summaryOf = async (b: { token: string; batchId: string }) => (await t.call('GET', `/v1/couriers/manifests/${b.batchId}/pipeline-status`, { token: b.token })).body.data.summary;

afterEach(() => quotes.clear());

describe('the scheduled exchange-rate retry', () => {
  it("on the twin asks no official source: a tick leaves a day without a stored rate waiting", async () => {
    const b = await waitingBatch('Twin Retry Couriers');
    expect((await summaryOf(b)).pesos_pending).toMatchObject({ date: rateDay });
    expect(officialExchangeRates()).toBeNull();

    await t.twin.jobs.sendOnce('exchangeRateRetry', { kind: 'scheduled' }, `tick-${Date.now()}`);
    await t.settle();

    expect((await summaryOf(b)).pesos_pending).toMatchObject({ date: rateDay });
    expect(await getStoredRate(rateDay)).toBeNull();
    expect(asked).toEqual([]);
  });

  it('keeps one small item per waiting day, however many batches wait on it', async () => {
    await waitingBatch('Second Waiting Couriers');
    expect((await pesosWaitsOn(rateDay)).length).toBe(2);
    expect(await pesosWaitDaysAll()).toEqual([{ date: rateDay, waits: 2 }]);
  });

  it("keeps the day while the BCRA has no quote, then stores its quote (source bcra) and completes every waiting batch's pesos once", async () => {
    const waiting = (await pesosWaitsOn(rateDay)).map((w) => w.batchId).sort();
    expect(await retryMissingRates(bcra)).toMatchObject({ fetched: [], missing: [{ date: rateDay, reason: `No exchange rate is stored for ${rateDay}. The BCRA published no USD quote for ${rateDay}.` }] });
    expect(await getStoredRate(rateDay)).toBeNull();

    quotes.set(rateDay, '1069.6667');
    const handed = await handOvers(rateDay, async () => expect(await retryMissingRates(bcra)).toMatchObject({ fetched: [rateDay], missing: [] }));
    expect(handed.map((h) => h.batchId).sort()).toEqual(waiting);
    expect(await getStoredRate(rateDay)).toMatchObject({ rate: '1069.6667', source: 'bcra', setBy: null });
    await t.settle();

    expect(await pesosWaitsOn(rateDay)).toEqual([]);
    for (const b of submitted) {
      const summary = await summaryOf(b);
      expect(summary.pesos_pending).toBeUndefined();
      expect(summary.exchange_rate).toEqual({ rate: 1069.6667, date: rateDay, source: 'bcra' });
    }
    const listed = await t.call('GET', `/v1/admin/exchange-rates?from=${rateDay}&to=${rateDay}`);
    expect(listed.body.data).toEqual([expect.objectContaining({ date: rateDay, rate: 1069.6667, source: 'bcra' })]);
  });

  it('forgets a day once its rate is stored and no batch waits, without asking the BCRA again', async () => {
    const before = asked.length;
    expect(await retryLater(bcra)).toMatchObject({ fetched: [], handedOver: [], done: [rateDay] });
    expect(await pesosWaitDaysAll()).toEqual([]);
    expect(asked.length).toBe(before);
  });

  it('hands over the batches still waiting on a day whose rate was stored before the grace, as setting it again does, and leaves a day just set to its setter', async () => {
    const { accountId } = await t.account('Late Tick Couriers');
    await t.call('PUT', '/v1/admin/exchange-rates/2025-03-14', { body: { rate: 1069.6667, source: 'BNA' } });
    // A run that read the rate before it was stored finishes after: its batch waits on a stored day.
    await putPesosWait({ date: '2025-03-14', batchId: 'b-straggler', accountId, runId: 'r-1', at: new Date().toISOString() });
    expect(await handOvers('2025-03-14', async () => expect(await retryMissingRates(null)).toMatchObject({ justSet: ['2025-03-14'] }))).toEqual([]);

    const handed = await handOvers('2025-03-14', async () => expect(await retryLater(null)).toMatchObject({ handedOver: ['2025-03-14'] }));
    expect(handed).toEqual([{ batchId: 'b-straggler', day: '2025-03-14' }]);
  });

  it('run twice at once stores the rate once and hands each batch over once', async () => {
    const { accountId } = await t.account('Twice Couriers');
    await putPesosWait({ date: '2025-03-13', batchId: 'b-twice', accountId, runId: 'r-1', at: new Date().toISOString() });
    quotes.set('2025-03-13', '1068.5');
    const handed = await handOvers('2025-03-13', () => Promise.all([retryMissingRates(bcra), retryMissingRates(bcra)]));
    expect(handed).toEqual([{ batchId: 'b-twice', day: '2025-03-13' }]);
    expect(await getStoredRate('2025-03-13')).toMatchObject({ rate: '1068.5', source: 'bcra' });
  });

  it("racing an operator's PUT of another rate, one of them stores the day's rate and the batch is handed over once", async () => {
    const { accountId } = await t.account('Race Couriers');
    await putPesosWait({ date: '2025-03-12', batchId: 'b-race', accountId, runId: 'r-1', at: new Date().toISOString() });
    quotes.set('2025-03-12', '1067.25');
    let put = 0;
    const handed = await handOvers('2025-03-12', () =>
      Promise.all([retryMissingRates(bcra), t.call('PUT', '/v1/admin/exchange-rates/2025-03-12', { body: { rate: 1070, source: 'BNA' } }).then((r) => (put = r.status))]),
    );
    expect(handed).toEqual([{ batchId: 'b-race', day: '2025-03-12' }]);
    const stored = await getStoredRate('2025-03-12');
    if (put === 201) expect(stored).toMatchObject({ rate: '1070', source: 'BNA' });
    else expect({ put, ...stored }).toMatchObject({ put: 409, rate: '1067.25', source: 'bcra' });
  });

  it('keeps a day when a batch started waiting on it after the retry looked (a conditional delete)', async () => {
    const { accountId } = await t.account('Straggler Couriers');
    await putPesosWait({ date: '2025-03-11', batchId: 'b-late', accountId, runId: 'r-1', at: new Date().toISOString() });
    const [looked] = (await pesosWaitDaysAll()).filter((d) => d.date === '2025-03-11');
    await putPesosWait({ date: '2025-03-11', batchId: 'b-later', accountId, runId: 'r-1', at: new Date().toISOString() });
    expect(await forgetPesosWaitDay(looked)).toBe(false);
    expect((await pesosWaitDaysAll()).map((d) => d.date)).toContain('2025-03-11');
  });
});
