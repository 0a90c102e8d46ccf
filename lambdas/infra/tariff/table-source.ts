import type { TariffRow } from '#core/tariff/table';
import { now } from '../clock';
import { config } from '#shared/config';
import { currentTariff, getTariffMeta } from '../entities/tariff';

/** The tariff table in force: the last import, or the built-in table when there was none. */
export interface TariffTable {
  source: 'builtin' | 'imported';
  rows: readonly TariffRow[];
  version: string | null;
  importedAt: string | null;
}

let builtin: Promise<TariffTable> | undefined;

/**
 * The built-in table (core/tariff/builtin.ts, about 120 KB of rows), imported at its first use:
 * a function whose stage has imported its own table, or that never classifies, does not evaluate
 * it (issue 46). One object per process, so classifiers built on it live on.
 */
export function builtinTable(): Promise<TariffTable> {
  builtin ??= import('#core/tariff/builtin').then(({ builtinTariff }) => ({ source: 'builtin', rows: builtinTariff, version: null, importedAt: null }));
  return builtin;
}

/** How long a process trusts its copy before it checks the meta record again. */
export const tableCacheMs = 60_000;

let cached: { tableName: string; checkedAt: number; table: TariffTable } | undefined;

/**
 * The table in force, cached per process for a minute. After that, one consistent read of the meta
 * record tells whether the version changed; only then are the rows read again. An unchanged table
 * keeps its object, so classifiers built on it (and their caches) live on.
 */
export async function loadTariffTable(): Promise<TariffTable> {
  const tableName = config.tableName();
  const at = now().getTime();
  if (cached && cached.tableName === tableName && at - cached.checkedAt < tableCacheMs) return cached.table;
  const known = cached?.tableName === tableName ? cached.table : undefined;
  let table: TariffTable;
  const meta = await getTariffMeta();
  if (!meta) table = await builtinTable();
  else if (known && known.version === meta.currentVersion) table = known;
  else {
    const current = await currentTariff();
    table = current
      ? { source: 'imported', rows: current.rows, version: current.meta.currentVersion, importedAt: current.meta.importedAt }
      : await builtinTable();
  }
  cached = { tableName, checkedAt: at, table };
  return table;
}

/** Drops the process's copy: the next load reads the table again (after an import in this process). */
export function forgetTariffTable(): void {
  cached = undefined;
}
