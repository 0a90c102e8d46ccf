/**
 * `npm run bench:search`: the broker's search (docs/brokers/search.md) at 100,000 products, on the
 * service in its own process against an in-memory DynamoDB Local (scripts/bench-service.ts).
 *
 * 1. Intake without the index: the service started with `SEARCH_INDEX=off`, 100,000 products sent
 *    in 20 chunks of 5,000 (as bench:intake's chunked part), timed from the first chunk to the
 *    batch being visible (every item written).
 * 2. Intake with the index: a fresh service and table, the same products; the same time, and the
 *    index items it wrote (counted by a Scan of `SEARCH#` partitions).
 * 3. The queries: with the 100,000 products processed and 200 documents uploaded, each kind
 *    searched 30 times with different values (a guía, a whole AWB and its start, a CUIL, a
 *    consignee's two words, a product's words with the last one cut, a document's file-name
 *    word), timed from the request to the answer over HTTP; p50 and p95 per kind.
 *
 * The products look like a flight's: AWBs issued in a run, 40,000 consignees (valid CUILs, names
 * from 60 given names and 60 surnames), descriptions from 3,000 combinations of a noun, a
 * material and a qualifier. Targets: every kind's p95 < 300 ms; intake with the index less than
 * 10% slower than without. `BENCH_CHUNKS` and `BENCH_CHUNK_ITEMS` change the size. Exits 1 if a
 * target is missed.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { adminToken, startBenchService, type BenchService } from './bench-service';
import { item as testItem } from '#support/manifests';
import { pdf } from '#support/files';
import { cuitCheckDigit } from '#core/customs/tax-id';

const chunkCount = Number(process.env.BENCH_CHUNKS ?? 20);
const chunkItems = Number(process.env.BENCH_CHUNK_ITEMS ?? 5_000);
const total = chunkCount * chunkItems;
const people = Math.min(40_000, total);
const queriesPerKind = 30;
const targets = { p95Ms: 300, slowdown: 0.1 };

const given = 'María José Juan Carlos Lucía Martín Sofía Mateo Valentina Santiago Camila Benjamín Isabella Tomás Emilia Joaquín Martina Lautaro Catalina Agustín Julieta Felipe Victoria Nicolás Florencia Lucas Paula Ignacio Agustina Bruno Micaela Thiago Abril Facundo Milagros Gonzalo Rocío Federico Daniela Sebastián Carolina Matías Natalia Diego Gabriela Pablo Andrea Franco Laura Emiliano Mariana Rodrigo Silvina Leandro Verónica Ezequiel Romina Hernán Cecilia Damián Noelia'.split(' ');
const surnames = 'González Rodríguez Gómez Fernández López Díaz Martínez Pérez García Sánchez Romero Sosa Álvarez Torres Ruiz Ramírez Flores Acosta Benítez Medina Suárez Herrera Aguirre Pereyra Gutiérrez Giménez Molina Silva Castro Rojas Ortiz Núñez Luna Juárez Cabrera Ríos Ferreyra Godoy Morales Domínguez Moreno Peralta Vega Carrizo Quiroga Castillo Ledesma Muñoz Ojeda Ponce Vera Vázquez Villalba Cardozo Navarro Ramos Arias Coronel Córdoba Figueroa'.split(' ');
const nouns = 'casco funda mochila auriculares remera zapatillas reloj lámpara cargador cable parlante teclado mouse campera bufanda guantes billetera cartera anteojos mate termo cuchillo sartén olla taza botella juguete muñeca pelota raqueta bicicleta'.split(' ');
const materials = 'de plástico|de silicona|de cuero|de algodón|de acero inoxidable|de madera|de vidrio|de aluminio|de poliéster|de lana'.split('|');
const qualifiers = 'para adulto|para niño|talle M|talle L|color negro|color rojo|inalámbrico|recargable|plegable|deportivo'.split('|');

const person = (p: number) => {
  const first10 = `${p % 2 ? '27' : '20'}${String(20_000_000 + p * 997).padStart(8, '0')}`;
  return { name: `${given[p % 60]} ${surnames[Math.floor(p / 60) % 60]} ${surnames[(p * 7) % 60]}`, cuil: first10 + cuitCheckDigit(first10) };
};
const description = (i: number) => `${nouns[i % 30]} ${materials[Math.floor(i / 30) % 10]} ${qualifiers[Math.floor(i / 300) % 10]}`;
const awbOf = (run: string, i: number) => `${run}${String(i).padStart(7, '0')}`;

function product(run: string, i: number) {
  const who = person((i * 7919) % people);
  return testItem(i, { awbNumber: awbOf(run, i), itemIdempotencyKey: `${run}-line-${i}`, consigneeName: who.name, consigneeIdType: 'CUIL', consigneeIdNumber: who.cuil, itemDescription: description((i * 31) % 3000) });
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
const secs = (ms: number) => (ms / 1000).toFixed(2);

/** Sends the products in chunks; answers the time from the first chunk to the batch visible, and the batch. */
async function intake(service: BenchService, run: string, mawb: string): Promise<{ ms: number; batchId: string }> {
  const base = randomUUID();
  const started = performance.now();
  for (let n = 1; n <= chunkCount; n++) {
    const its = Array.from({ length: chunkItems }, (_, k) => product(run, (n - 1) * chunkItems + k + 1));
    const body = { mawbNumber: mawb, items: its, _chunk_metadata: { chunk_number: n, total_chunks: chunkCount, base_idempotency_key: base, total_items: total } };
    const res = await service.submit(body);
    if (res.status !== 202) throw new Error(`chunk ${n}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  const batchId = await service.waitVisible(base);
  return { ms: performance.now() - started, batchId };
}

async function countIndexItems(service: BenchService): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const res = await service.dynamo.send(
      new ScanCommand({ TableName: service.tableName, FilterExpression: 'begins_with(pk, :s)', ExpressionAttributeValues: { ':s': 'SEARCH#' }, Select: 'COUNT', ExclusiveStartKey: start }),
    );
    count += res.Count ?? 0;
    start = res.LastEvaluatedKey;
  } while (start);
  return count;
}

async function admin(service: BenchService, path: string, body: unknown) {
  const res = await fetch(`${service.apiUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { data: { id: number; token: string } };
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const run = 'SB' + randomUUID().slice(0, 4).toUpperCase();
const mawb = `880-${String(Date.now()).slice(-8)}`;
let ok = true;

// 1. Without the index.
process.env.SEARCH_INDEX = 'off';
let without: number;
{
  const service = await startBenchService({ tableName: 'bench_search_off' });
  try {
    without = (await intake(service, run, mawb)).ms;
    console.log(`intake of ${total} products in ${chunkCount} chunks, without the index: visible in ${secs(without)} s`);
  } finally {
    await service.stop();
  }
}

// 2. With the index, then 3. the queries.
delete process.env.SEARCH_INDEX;
const service = await startBenchService({ tableName: 'bench_search' });
try {
  const { ms: withIndex, batchId } = await intake(service, run, mawb);
  const slowdown = withIndex / without - 1;
  console.log(`intake with the index: visible in ${secs(withIndex)} s (${(slowdown * 100).toFixed(1)}% against without)`);
  await service.waitCompleted(batchId);
  const broker = await admin(service, '/v1/admin/accounts', { name: 'Bench Broker', kind: 'broker' });
  // The route allows 120 requests a minute to a token: the queries take turns on ten.
  const brokerTokens: string[] = [];
  for (let k = 0; k < 10; k++) brokerTokens.push((await admin(service, '/v1/admin/tokens', { account_id: broker.id, name: `bench-broker-${k}`, role: 'broker' })).token);
  let turn = 0;
  const docs = 200;
  for (let d = 0; d < docs; d++) {
    const res = await fetch(`${service.apiUrl}/v1/transport/documents/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.token()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ document_type: 'other', filename: `factura-${nouns[d % 30]}-${d}.pdf`, file_base64: pdf(`doc ${d}`).toString('base64') }),
    });
    if (res.status !== 201) throw new Error(`document ${d}: ${res.status} ${await res.text()}`);
  }
  const indexItems = await countIndexItems(service);
  console.log(`index items written: ${indexItems} for ${total} products and ${docs} documents (${((indexItems / total) * 100).toFixed(1)} per 100 products)`);

  const queries: Record<string, (i: number) => string> = {
    batch: () => mawb.slice(0, 7),
    'awb (whole)': (i) => awbOf(run, 1 + ((i * 3331) % total)),
    'awb (start)': (i) => awbOf(run, 1 + ((i * 3331) % total)).slice(0, -3),
    taxid: (i) => person((i * 1234) % people).cuil,
    consignee: (i) => person((i * 1234) % people).name.split(' ').slice(0, 2).join(' ').toLowerCase(),
    product: (i) => description(i * 97).split(' ').slice(0, 3).join(' ').slice(0, -2),
    document: (i) => `factura ${nouns[i % 30].slice(0, 4)}`,
  };
  console.log('\nquery            p50 ms   p95 ms   results (first query)');
  for (const [kind, q] of Object.entries(queries)) {
    const times: number[] = [];
    let first = '';
    for (let i = 0; i < queriesPerKind; i++) {
      const started = performance.now();
      const res = await fetch(`${service.apiUrl}/v1/couriers/review/search?q=${encodeURIComponent(q(i))}`, { headers: { authorization: `Bearer ${brokerTokens[turn++ % brokerTokens.length]}` } });
      const body = (await res.json()) as { data: Record<string, { results: unknown[]; more: boolean }> };
      times.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`search ${q(i)}: ${res.status} ${JSON.stringify(body)}`);
      const groups = Object.entries(body.data).flatMap(([g, v]) => (typeof v === 'object' && v && 'results' in v && v.results.length ? [`${g} ${v.results.length}${v.more ? '+' : ''}`] : []));
      if (!groups.length) throw new Error(`search ${q(i)} found nothing`);
      if (i === 0) first = `"${q(i)}": ${groups.join(', ')}`;
    }
    const p95 = quantile(times, 0.95);
    if (p95 >= targets.p95Ms) ok = false;
    console.log(`${kind.padEnd(15)} ${quantile(times, 0.5).toFixed(0).padStart(7)} ${p95.toFixed(0).padStart(8)}   ${first}`);
  }
  if (slowdown >= targets.slowdown) ok = false;
  console.log(`\ntargets: every kind p95 < ${targets.p95Ms} ms, intake slowed < ${targets.slowdown * 100}% (${(slowdown * 100).toFixed(1)}%): ${ok ? 'met' : 'NOT met'}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await service.stop();
}
