import { parseRate, type ExchangeRates, type RateAnswer } from '#core/customs/exchange-rate';

/**
 * The official public source: the BCRA's exchange statistics API (no token, no registration),
 * `GET /estadisticascambiarias/v1.0/Cotizaciones/USD?fechadesde=D&fechahasta=D`, which answers
 * `{status, metadata, results: [{fecha, detalle: [{codigoMoneda, descripcion, tipoPase, tipoCotizacion}]}]}`.
 * `tipoCotizacion` is the day's quote in pesos per dollar.
 *
 * What it publishes is the BCRA's quote of the day, which the service takes for the Banco Nación
 * selling rate (an assumption, docs/spec/customs-ar.md): an operator's stored rate always wins
 * (`storedThenOfficial`, infra/exchange-rates/port.ts). Used only in a deployed stage; the twin
 * reads the stored rates. A day without a quote (a weekend, a holiday), an error or a timeout is a
 * missing rate with its reason, never another day's rate.
 */
export class BcraExchangeRates implements ExchangeRates {
  constructor(
    private readonly baseUrl = 'https://api.bcra.gob.ar',
    private readonly timeoutMs = 5000,
  ) {}

  async rateFor(date: string): Promise<RateAnswer> {
    const url = `${this.baseUrl}/estadisticascambiarias/v1.0/Cotizaciones/USD?fechadesde=${encodeURIComponent(date)}&fechahasta=${encodeURIComponent(date)}`;
    const missing = (reason: string): RateAnswer => ({ found: false, date, reason });
    let body: unknown;
    try {
      const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.timeoutMs) });
      // The API answers 404 with errorMessages when the range holds no quote.
      if (res.status === 404) return missing(`The BCRA published no USD quote for ${date}.`);
      if (!res.ok) return missing(`The BCRA answered HTTP ${res.status} for ${date}.`);
      body = await res.json();
    } catch (err) {
      return missing(`The BCRA could not be read for ${date}: ${(err as Error).name === 'TimeoutError' ? 'no answer in time' : 'the request failed'}.`);
    }
    const quote = quoteOf(body, date);
    if (quote === undefined) return missing(`The BCRA published no USD quote for ${date}.`);
    const parsed = parseRate(String(quote));
    if (!parsed.ok) return missing(`The BCRA's USD quote for ${date} is not a usable rate (${parsed.reason})`);
    return { found: true, rate: { rate: parsed.rate, date, source: 'bcra' } };
  }
}

/** The USD quote of exactly `date` in an answer of the API, if it holds one; anything else in it is ignored. */
function quoteOf(body: unknown, date: string): number | string | undefined {
  const results = (body as { results?: unknown })?.results;
  if (!Array.isArray(results)) return undefined;
  for (const day of results) {
    const d = day as { fecha?: unknown; detalle?: unknown };
    if (typeof d?.fecha !== 'string' || d.fecha.slice(0, 10) !== date || !Array.isArray(d.detalle)) continue;
    for (const item of d.detalle) {
      const i = item as { codigoMoneda?: unknown; tipoCotizacion?: unknown };
      if (i?.codigoMoneda === 'USD' && (typeof i.tipoCotizacion === 'number' || typeof i.tipoCotizacion === 'string')) return i.tipoCotizacion;
    }
  }
  return undefined;
}
