/**
 * `npm run bench:ncm`: the NCM picker's search (GET /v1/customs/tariff/ncm, docs/brokers/review.md)
 * on a tariff table of 20,000 rows (the importer's maximum), made from the built-in table's rows
 * under derived codes with a qualifier word each.
 *
 * 1. In process: the index built once (what a cold start pays at its first search), then 1,000
 *    queries of every kind a broker types (a Spanish word, an English word, two words with the last
 *    cut, a word with accents, a code prefix of 2 to 8 digits with dots); p50, p95, max.
 * 2. Over HTTP: the service in its own process against an in-memory DynamoDB Local
 *    (scripts/bench-service.ts), the table imported with PUT /v1/admin/tariff: its first 10,000 rows
 *    (`BENCH_HTTP_ROWS`; the official NCM has about 10,300 8-digit codes) without keywords, within
 *    the import's 4 MB body; the first search (the
 *    rows read and the index built), then 300 searches timed from the request to the answer; p50, p95.
 *
 * Targets: the index built in < 1.5 s; a query p95 < 5 ms in process and < 200 ms over HTTP (the whole route: authorizer, rate window, table check).
 * Exits 1 if a target is missed.
 */
import { builtinTariff } from '#core/tariff/builtin';
import { indexNomenclature, searchNcm } from '#core/tariff/ncm-search';
import type { TariffRow } from '#core/tariff/table';
import { adminToken, startBenchService } from './bench-service';

const targets = { buildMs: 1_500, p95InProcessMs: 5, p95HttpMs: 200 };
const size = 20_000;
const qualifiers = 'grande pequeño rojo azul negro blanco plegable recargable deportivo infantil profesional portátil doméstico industrial eléctrico manual'.split(' ');

function bigTable(): TariffRow[] {
  const rows: TariffRow[] = [];
  const seen = new Set<string>();
  for (let k = 0; rows.length < size; k++) {
    const base = builtinTariff[k % builtinTariff.length];
    const digits = `${base.ncm.replace(/\D/g, '').slice(0, 4)}${String(Math.floor(k / builtinTariff.length) * 7 + (k % 97)).padStart(4, '0').slice(-4)}`;
    if (seen.has(digits)) continue;
    seen.add(digits);
    const q = qualifiers[k % qualifiers.length];
    rows.push({
      ncm: `${digits.slice(0, 4)}.${digits.slice(4, 6)}.${digits.slice(6)}`,
      description: `${base.description}, ${q}`,
      ...(base.description_en ? { description_en: base.description_en } : {}),
      duty_rate: base.duty_rate,
      ...(base.keywords ? { keywords: base.keywords.filter((w) => !w.includes(',') && !w.includes(';')).slice(0, 8) } : {}),
    });
  }
  return rows;
}

const queries = ['casco', 'helmet', 'bicicleta', 'teléfonos inteligentes', 'zapatillas dep', 'reloj pul', 'watch', 'juguetes', 'bolsos de mano', 'café', 'auricular', 'headphones', 'mochila', 'perfume', 'lampara', 'cargador', '85', '8517', '8517.13', '6404.11.00', '9503', '4202.92', 'remera algodon', 'camiseta', 'xqzzvwk'];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const ms = (x: number) => x.toFixed(2);

const table = bigTable();
let t0 = performance.now();
const index = indexNomenclature(table);
const buildMs = performance.now() - t0;
const inProcess: number[] = [];
for (let i = 0; i < 1_000; i++) {
  t0 = performance.now();
  searchNcm(index, queries[i % queries.length], 20);
  inProcess.push(performance.now() - t0);
}
console.log(`in process, ${table.length} rows: index built in ${ms(buildMs)} ms (${index.vocabulary.length} words); 1,000 queries p50 ${ms(pct(inProcess, 50))} ms, p95 ${ms(pct(inProcess, 95))} ms, max ${ms(Math.max(...inProcess))} ms`);

const csvField = (s: string) => (/[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
// The import takes a body of at most 4,000,000 bytes: the rows go without their keywords (an official
// table has none), as many as fit.
const lines = table.map((r) => [r.ncm, r.description, String(r.duty_rate), r.description_en ?? ''].map(csvField).join(','));
let bytes = 40;
const fit = lines.findIndex((l) => (bytes += Buffer.byteLength(l) + 1) > 3_990_000);
const httpRows = Number(process.env.BENCH_HTTP_ROWS ?? 10_000);
const imported = (fit < 0 ? lines : lines.slice(0, fit)).slice(0, httpRows);
const csv = ['ncm,description,duty_rate,description_en', ...imported].join('\n');

const service = await startBenchService({ tableName: 'bench_ncm', tokens: 10 });
let http: number[] = [];
let first = 0;
try {
  const put = await fetch(`${service.apiUrl}/v1/admin/tariff`, { method: 'PUT', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'text/csv' }, body: csv });
  if (put.status !== 200) throw new Error(`the import answered ${put.status}: ${(await put.text()).slice(0, 500)}`);
  const ask = async (q: string) => {
    const started = performance.now();
    const res = await fetch(`${service.apiUrl}/v1/customs/tariff/ncm?q=${encodeURIComponent(q)}`, { headers: { authorization: `Bearer ${service.token()}` } });
    const body = (await res.json()) as { data: unknown[] };
    if (res.status !== 200) throw new Error(`search ${q} answered ${res.status}: ${JSON.stringify(body)}`);
    return performance.now() - started;
  };
  first = await ask('casco');
  http = [];
  for (let i = 0; i < 300; i++) http.push(await ask(queries[(i * 7) % queries.length]));
  console.log(`over HTTP, the imported table of ${imported.length} rows (no keywords): first search ${ms(first)} ms (rows read, index built); 300 searches p50 ${ms(pct(http, 50))} ms, p95 ${ms(pct(http, 95))} ms`);
} finally {
  await service.stop();
}

const missed = [
  buildMs > targets.buildMs && `index built in ${ms(buildMs)} ms > ${targets.buildMs}`,
  pct(inProcess, 95) > targets.p95InProcessMs && `in-process p95 ${ms(pct(inProcess, 95))} ms > ${targets.p95InProcessMs}`,
  pct(http, 95) > targets.p95HttpMs && `HTTP p95 ${ms(pct(http, 95))} ms > ${targets.p95HttpMs}`,
].filter(Boolean);
if (missed.length) {
  console.log(`missed: ${missed.join('; ')}`);
  process.exit(1);
}
console.log('targets met');
