/**
 * Finding proofs of delivery (issue 44) by AWB, manifest or flight, and a flight's proofs as one
 * ZIP with an index. A partner sees its own account's; a broker (or an admin) every account's.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Zip, ZipPassThrough } from 'fflate';
import { seesAllAccounts, type Principal } from '#core/auth/principal';
import { NotFound } from '#core/errors';
import { archiveEntryName, archiveIndexColumns, archiveIndexRow, type ProofRecord } from '#core/deliveries/proof';
import { csvLine } from '#core/manifests/product-table';
import { findProofs, type ProofFilter } from '#infra/entities/deliveries';
import { blobs, proofStore } from '#infra/blobs';
import { now } from '#infra/clock';
import { openListCursor, sealCursor } from '#infra/cursors';

/** Signed download URLs of proofs and of flight ZIPs live 60 minutes, as documents' do. */
export const proofUrlMinutes = 60;

const scopeOf = (principal: Principal) => (seesAllAccounts(principal) ? undefined : principal.accountId);

export async function proofUrl(p: ProofRecord): Promise<string> {
  return proofStore().downloadUrl(p.fileKey, { expiresInSeconds: proofUrlMinutes * 60, fileName: p.fileName, contentType: p.mimeType });
}

/** One page of the proofs a filter finds, each with a signed URL of its file. */
export async function listProofs(principal: Principal, filter: ProofFilter, page: { cursor?: string; perPage: number }) {
  const opened = await openListCursor(page.cursor);
  const res = await findProofs(filter, scopeOf(principal), { cursor: opened, limit: page.perPage });
  const proofs = await Promise.all(res.proofs.map(async (p) => ({ proof: p, downloadUrl: await proofUrl(p) })));
  return { proofs, nextCursor: res.cursor === null ? null : await sealCursor(res.cursor) };
}

/** Every proof of a flight the caller sees, page by page (100 at a time), never all held at once. */
async function* flightProofs(principal: Principal, mawbNumber: string): AsyncGenerator<ProofRecord> {
  let cursor: string | undefined;
  do {
    const res = await findProofs({ mawbNumber }, scopeOf(principal), { cursor, limit: 100 });
    yield* res.proofs;
    cursor = res.cursor ?? undefined;
  } while (cursor);
}

/**
 * The flight's ZIP as it is made: `index.csv` first (read by paging through the flight's proofs),
 * then each proof's file streamed from the proofs' store (a second paging), stored as they are
 * (images and PDFs do not compress). Memory holds one chunk of one file at a time.
 */
async function* flightZip(principal: Principal, mawbNumber: string): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  let failed: Error | undefined;
  const zip = new Zip((err, chunk) => (err ? (failed = err) : out.push(chunk)));
  const drain = function* () {
    if (failed) throw failed;
    while (out.length) yield out.shift()!;
  };
  const index = new ZipPassThrough('index.csv');
  zip.add(index);
  index.push(new TextEncoder().encode(csvLine([...archiveIndexColumns])));
  for await (const p of flightProofs(principal, mawbNumber)) {
    index.push(new TextEncoder().encode(csvLine(archiveIndexRow(p))));
    yield* drain();
  }
  index.push(new Uint8Array(0), true);
  yield* drain();
  for await (const p of flightProofs(principal, mawbNumber)) {
    const entry = new ZipPassThrough(archiveEntryName(p));
    zip.add(entry);
    const body = await proofStore().getStream(p.fileKey);
    if (!body) throw new Error(`proof file ${p.fileKey} is missing from the proofs' store`);
    for await (const chunk of body) {
      entry.push(chunk instanceof Uint8Array ? chunk : Buffer.from(chunk));
      yield* drain();
    }
    entry.push(new Uint8Array(0), true);
    yield* drain();
  }
  zip.end();
  yield* drain();
}

/** GET /v1/deliveries/flights/{mawb}/archive: the ZIP stored as it is made, and a signed URL to it; 404 when the caller sees no proof of the flight. */
export async function flightArchive(principal: Principal, mawbNumber: string) {
  const first = await findProofs({ mawbNumber }, scopeOf(principal), { limit: 1 });
  if (!first.proofs.length) throw new NotFound(`No proof of delivery for flight ${mawbNumber}.`);
  const flight = createHash('sha256').update(mawbNumber).digest('hex').slice(0, 16);
  const stamp = now().toISOString().replace(/[-:.]/g, '');
  const key = `exports/deliveries/${scopeOf(principal) ?? 'all'}/${flight}-${stamp}.zip`;
  const fileName = `proofs-${mawbNumber.replace(/[^A-Za-z0-9._-]/g, '_')}.zip`;
  await blobs().putStream(key, Readable.from(flightZip(principal, mawbNumber)), 'application/zip');
  const url = await blobs().downloadUrl(key, { expiresInSeconds: proofUrlMinutes * 60, fileName, contentType: 'application/zip' });
  return { downloadUrl: url, fileName, expiresInMinutes: proofUrlMinutes };
}
