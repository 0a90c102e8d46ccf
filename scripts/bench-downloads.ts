/**
 * `npm run bench:downloads`: what a partner's client receives for the results of a 100,000-item
 * manifest, json plain vs gzip vs ndjson (plain and gzip): bytes on the wire, bytes once decoded,
 * and the time from the request to the last decoded byte (the 303 to storage followed, the gzip
 * decoded as it arrives, as `curl --compressed` or a browser does), on this machine's loopback,
 * and what those bytes take on a 10 Mbit/s link.
 *
 * The manifest goes through the service in its own process (scripts/bench-service.ts), built as
 * bench:pipeline's (c) (scripts/bench-manifests.ts): 100,000 items in 20 chunks of 5,000 to 50,000
 * people. Each variant is downloaded twice; the first round may include making a compressed copy
 * the finish had not made yet, the second is the steady state. BENCH_ITEMS and BENCH_CHUNKS change
 * the size. Exits 1 if a decoded download differs from the plain one.
 */
import { createHash, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { startBenchService } from './bench-service';
import { items } from './bench-manifests';

const itemCount = Number(process.env.BENCH_ITEMS ?? 100_000);
const chunkCount = Number(process.env.BENCH_CHUNKS ?? 20);
const linkMbps = 10;

interface Fetched {
  status: number;
  redirected: boolean;
  wireBytes: number;
  decodedBytes: number;
  ms: number;
  encoding: string;
  digest: string;
}

/** One GET, raw: counts the bytes as they arrive and decodes gzip as it streams, following one 303. */
function get(url: string, headers: Record<string, string>, t0 = performance.now(), redirected = false): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      if (res.statusCode === 303 && res.headers.location) {
        res.resume();
        // Storage is asked with the same Accept-Encoding; it answers the stored object as it is.
        resolve(get(new URL(res.headers.location, url).href, { 'accept-encoding': headers['accept-encoding'] }, t0, true));
        return;
      }
      let wireBytes = 0;
      let decodedBytes = 0;
      const hash = createHash('sha256');
      const encoding = String(res.headers['content-encoding'] ?? 'identity');
      res.on('data', (c: Buffer) => (wireBytes += c.length));
      const decoded: Readable = encoding === 'gzip' ? res.pipe(createGunzip()) : res;
      decoded.on('data', (c: Buffer) => ((decodedBytes += c.length), hash.update(c)));
      decoded.on('end', () => resolve({ status: res.statusCode!, redirected, wireBytes, decodedBytes, ms: performance.now() - t0, encoding, digest: hash.digest('hex') }));
      decoded.on('error', reject);
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`.padStart(9);
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`.padStart(8);

const service = await startBenchService({ tableName: 'bench_downloads' });
let failed = false;
try {
  const run = 'D' + randomUUID().slice(0, 6);
  const base = randomUUID();
  const per = itemCount / chunkCount;
  const t0 = performance.now();
  for (let c = 1; c <= chunkCount; c++) {
    const body = { mawbNumber: `MAWB-${run}`, items: items(per, run, { kind: 'distinct', firstPerson: 1 }, (c - 1) * per + 1) };
    const meta = chunkCount > 1 ? { _chunk_metadata: { chunk_number: c, total_chunks: chunkCount, base_idempotency_key: base, total_items: itemCount } } : {};
    const res = await service.submit(JSON.stringify({ ...body, ...meta }), chunkCount > 1 ? {} : { 'idempotency-key': base });
    if (res.status !== 202) throw new Error(`submission ${c}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  const batchId = await service.waitVisible(base);
  await service.waitCompleted(batchId);
  console.log(`${itemCount.toLocaleString('en')} items processed in ${((performance.now() - t0) / 1000).toFixed(0)} s (batch ${batchId}); downloading\n`);

  const variants = [
    { label: 'json, plain', format: 'json', accept: 'identity' },
    { label: 'json, gzip', format: 'json', accept: 'gzip' },
    { label: 'ndjson, plain', format: 'ndjson', accept: 'identity' },
    { label: 'ndjson, gzip', format: 'ndjson', accept: 'gzip' },
  ];
  const results: Record<string, Fetched[]> = {};
  for (let round = 1; round <= 2; round++) {
    for (const v of variants) {
      const url = `${service.apiUrl}/v1/couriers/manifests/${batchId}/download?format=${v.format}`;
      const r = await get(url, { authorization: `Bearer ${service.token()}`, 'accept-encoding': v.accept });
      if (r.status !== 200) throw new Error(`${v.label}: HTTP ${r.status}`);
      (results[v.label] ??= []).push(r);
    }
  }
  console.log(`${'variant'.padEnd(15)} ${'on the wire'.padStart(11)} ${'decoded'.padStart(9)} ${'ratio'.padStart(6)}  ${'download'.padStart(8)} ${'(1st)'.padStart(8)}  at ${linkMbps} Mbit/s`);
  for (const v of variants) {
    const [first, again] = results[v.label];
    const plain = results[`${v.format}, plain`][1];
    const ratio = plain.wireBytes / again.wireBytes;
    const link = (again.wireBytes * 8) / (linkMbps * 1e6);
    console.log(
      `${v.label.padEnd(15)} ${mb(again.wireBytes).padStart(11)} ${mb(again.decodedBytes)} ${ratio.toFixed(1).padStart(5)}x  ${s(again.ms)} ${s(first.ms)}  ${link >= 60 ? `${(link / 60).toFixed(1)} min` : `${link.toFixed(1)} s`}${again.redirected ? '   (303 to storage)' : ''}${again.encoding === 'gzip' ? '   Content-Encoding: gzip' : ''}`,
    );
    // The same products whatever the encoding.
    if (again.digest !== plain.digest || first.digest !== plain.digest) {
      console.log(`  ${v.label}: the decoded body differs from the plain one`);
      failed = true;
    }
  }
  console.log(`\nRatio: the plain variant's bytes over this one's. Times: request to last decoded byte on loopback (storage is local disk on the twin); the last column is the wire bytes at ${linkMbps} Mbit/s.`);
} finally {
  await service.stop();
}
process.exit(failed ? 1 : 0);
