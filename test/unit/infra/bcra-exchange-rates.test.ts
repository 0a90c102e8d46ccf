import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { BcraExchangeRates } from '#infra/exchange-rates/bcra';

/**
 * The adapter against a real HTTP server on loopback. The answer is written to the shape the BCRA
 * documents for Cotizaciones/{moneda} (no internet here to record a live one): test/fixtures/exchange-rates.
 */
const recorded = readFileSync(new URL('../../fixtures/exchange-rates/bcra-usd-2025-03-14.json', import.meta.url), 'utf8');
const asked: string[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    const day = url.searchParams.get('fechadesde');
    if (url.pathname !== '/estadisticascambiarias/v1.0/Cotizaciones/USD') return void res.writeHead(404).end();
    if (day === '2025-03-14') return void res.writeHead(200, { 'content-type': 'application/json' }).end(recorded);
    if (day === '2025-03-15') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":404,"errorMessages":["No se encontraron cotizaciones"]}');
    if (day === '2025-03-10') return void res.writeHead(500).end('boom');
    if (day === '2025-03-11') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{not json');
    if (day === '2025-03-12') return void res.writeHead(200, { 'content-type': 'application/json' }).end(recorded.replace('1069.6667', '-3').replace('2025-03-14', '2025-03-12'));
    if (day === '2025-03-07') return; // never answers
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":200,"results":[]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('the BCRA adapter', () => {
  it("answers the day's USD quote as an exact rate with its date and source bcra", async () => {
    expect(await new BcraExchangeRates(base).rateFor('2025-03-14')).toEqual({ found: true, rate: { rate: '1069.6667', date: '2025-03-14', source: 'bcra' } });
    expect(asked).toContain('/estadisticascambiarias/v1.0/Cotizaciones/USD?fechadesde=2025-03-14&fechahasta=2025-03-14');
  });

  it('answers missing, never another day, when the day has no quote', async () => {
    expect(await new BcraExchangeRates(base).rateFor('2025-03-15')).toMatchObject({ found: false, date: '2025-03-15', reason: 'The BCRA published no USD quote for 2025-03-15.' });
    expect(await new BcraExchangeRates(base).rateFor('2025-03-13')).toMatchObject({ found: false });
  });

  it('answers missing with the reason on an HTTP error, a body that is not JSON, or a quote that is not a rate', async () => {
    expect(await new BcraExchangeRates(base).rateFor('2025-03-10')).toMatchObject({ found: false, reason: 'The BCRA answered HTTP 500 for 2025-03-10.' });
    expect(await new BcraExchangeRates(base).rateFor('2025-03-11')).toMatchObject({ found: false, reason: expect.stringContaining('could not be read') });
    expect(await new BcraExchangeRates(base).rateFor('2025-03-12')).toMatchObject({ found: false, reason: expect.stringContaining('not a usable rate') });
  });

  it('answers missing when the source does not answer in time', async () => {
    expect(await new BcraExchangeRates(base, 200).rateFor('2025-03-07')).toMatchObject({ found: false, reason: 'The BCRA could not be read for 2025-03-07: no answer in time.' });
  });
});
