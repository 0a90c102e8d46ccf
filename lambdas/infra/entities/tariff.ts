import { randomUUID } from 'node:crypto';
import { isConditionalFailure } from './entity';
import { tariffRows } from './tariff/tariff-row';
import { tariffMetas, type TariffMetaItem } from './tariff/tariff-meta';
import { batchWriteAll } from '../batch-write';
import { Conflict, Unavailable } from '#core/errors';
import type { TariffRow } from '#core/tariff/table';

/**
 * The imported tariff table. Each import writes its rows under a new version (one item per row,
 * partition `TARIFF#<version>`), then points the meta record at that version with one conditional
 * update: readers see the old table or the new one, never a mix. The replaced version is deleted
 * afterwards; a reader caught half-way re-reads the meta (the row count tells it).
 */

/** Which imported version is in force, and who imported it. */
export type TariffMeta = TariffMetaItem;

export async function getTariffMeta(): Promise<TariffMeta | undefined> {
  const res = await tariffMetas().get({}).go({ consistent: true });
  return res.data ?? undefined;
}

export async function readTariffRows(version: string): Promise<TariffRow[]> {
  const res = await tariffRows().query.byVersion({ version }).go({ pages: 'all' });
  return res.data.map((r) => {
    const row: TariffRow = { ncm: r.ncm, description: r.description, duty_rate: r.dutyRate };
    if (r.descriptionEn) row.description_en = r.descriptionEn;
    if (r.keywords?.length) row.keywords = r.keywords;
    return row;
  });
}

/** The imported table in force, whole; undefined when none was ever imported (the built-in serves). */
export async function currentTariff(): Promise<{ meta: TariffMeta; rows: TariffRow[] } | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = await getTariffMeta();
    if (!current) return undefined;
    const found = await readTariffRows(current.currentVersion);
    // Fewer rows than the meta counts: an import replaced this version while it was being read.
    if (found.length === current.rows) return { meta: current, rows: found };
  }
  throw new Unavailable('The tariff table is being replaced; retry shortly.');
}

/**
 * Replaces the imported table with `table` (already validated): rows first, under a new version,
 * then the switch. Two imports at once: the second switch fails its condition, its rows are removed
 * and it answers 409, so the table is always exactly one import's rows.
 */
export async function replaceTariff(
  table: readonly TariffRow[],
  opts: { at: string; by?: string },
): Promise<{ version: string; replaced: string | null; rows: number }> {
  const before = await getTariffMeta();
  const version = `${opts.at.replace(/[-:.]/g, '')}-${randomUUID().slice(0, 8)}`;
  try {
    await writeRows(version, table);
  } catch (err) {
    await deleteVersion(version).catch(() => undefined);
    throw err;
  }
  const record = { currentVersion: version, rows: table.length, importedAt: opts.at, ...(opts.by ? { importedBy: opts.by } : {}) };
  try {
    if (before) {
      await tariffMetas()
        .patch({})
        .set({ ...record, previousVersion: before.currentVersion })
        .where(({ currentVersion }, { eq }) => eq(currentVersion, before.currentVersion))
        .go();
    } else {
      await tariffMetas().create(record).go();
    }
  } catch (err) {
    await deleteVersion(version).catch(() => undefined);
    if (isConditionalFailure(err)) throw new Conflict('Another import replaced the tariff table at the same time; this one changed nothing. Retry it.');
    throw err;
  }
  // Nothing reads a replaced version once the meta names the new one; a leftover costs only storage.
  if (before) await deleteVersion(before.currentVersion).catch(() => undefined);
  return { version, replaced: before?.currentVersion ?? null, rows: table.length };
}

async function writeRows(version: string, table: readonly TariffRow[]): Promise<void> {
  function* requests() {
    for (let i = 0; i < table.length; i += 25) {
      const slice = table.slice(i, i + 25).map((r) => ({
        version,
        ncm: r.ncm,
        description: r.description,
        ...(r.description_en ? { descriptionEn: r.description_en } : {}),
        dutyRate: r.duty_rate,
        ...(r.keywords?.length ? { keywords: r.keywords } : {}),
      }));
      yield* tariffRows().put(slice).params<{ RequestItems: never }[]>();
    }
  }
  await batchWriteAll(requests());
}

async function deleteVersion(version: string): Promise<void> {
  const keys = await tariffRows().query.byVersion({ version }).go({ pages: 'all', attributes: ['ncm'] });
  const refs = keys.data.map((k) => ({ version, ncm: k.ncm }));
  function* requests() {
    for (let i = 0; i < refs.length; i += 25) yield* tariffRows().delete(refs.slice(i, i + 25)).params<{ RequestItems: never }[]>();
  }
  await batchWriteAll(requests());
}
