import type { TariffRow } from '#core/tariff/table';
import { nowIso } from '#infra/clock';
import { getTariffMeta, replaceTariff, type TariffMeta } from '#infra/entities/tariff';
import { forgetTariffTable } from '#infra/tariff/table-source';
import { config } from '#shared/config';

/** Replaces the tariff table with `rows` (imported by `by`) and drops this instance's cached copy. */
export async function importTariff(rows: readonly TariffRow[], by: string): Promise<{ version: string; replaced: string | null; rows: number; at: string }> {
  const at = nowIso();
  const result = await replaceTariff(rows, { at, by });
  forgetTariffTable();
  return { ...result, at };
}

/** The imported table's description (none while the built-in table is used) and which classifier runs. */
export async function tariffStatus(): Promise<{ meta: TariffMeta | undefined; classifier: 'bedrock' | 'offline' }> {
  return { meta: await getTariffMeta(), classifier: config.bedrockModelId() ? 'bedrock' : 'offline' };
}
