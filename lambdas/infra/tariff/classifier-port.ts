import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { createOfflineClassifier, type Classification, type ClassifyInput, type OfflineClassifier } from '#core/tariff/classifier';
import type { HsIndex } from '#core/tariff/hs-fallback';
import { config } from '#shared/config';
import { loadTariffTable, type TariffTable } from './table-source';
import { traced } from '../tracing';
import { Lru } from '#shared/lru';

export interface TariffClassifierPort {
  classify(input: ClassifyInput): Promise<Classification>;
}

let built: { rows: TariffTable['rows']; modelId: string | undefined; port: TariffClassifierPort; offline: OfflineClassifier } | undefined;
let bedrockClient: BedrockRuntimeClient | undefined;
let hsIndex: Promise<HsIndex> | undefined;

/**
 * The HS nomenclature (about 760 KB of text, the data file hs-nomenclature.json that
 * hs-nomenclature.ts joins): in a Lambda bundle, the file bundled beside it (hs-nomenclature.mjs,
 * lib/bundling.ts `lazyModules`), so the bundle does not carry it; run from
 * the sources (the twin, the tests), the module itself. Both are computed URLs, which esbuild
 * leaves to run time.
 */
const nomenclatureModule = import.meta.url.endsWith('.ts')
  ? new URL('./hs-nomenclature.ts', import.meta.url).href
  : new URL('./hs-nomenclature.mjs', import.meta.url).href;

/**
 * The Bedrock tier (bedrock.ts and the SDK's Bedrock client): in a Lambda bundle, the module
 * bundled beside it (tariff-bedrock.mjs, lib/bundling.ts `lazyModules`), read only when a model is
 * configured; run from the sources, the module itself.
 */
const bedrockModule = import.meta.url.endsWith('.ts') ? new URL('./bedrock.ts', import.meta.url).href : new URL('./tariff-bedrock.mjs', import.meta.url).href;

/**
 * The HS fallback tier, loaded at the first description the tariff table does not fully explain:
 * the nomenclature is imported and indexed then, once per process, and never by a function that
 * only meets descriptions the table explains.
 */
export function loadHsIndex(): Promise<HsIndex> {
  hsIndex ??= Promise.all([
    import('#core/tariff/hs-fallback'),
    import(nomenclatureModule) as Promise<typeof import('./hs-nomenclature')>,
  ]).then(([tier, data]) => tier.createHsIndex(data.hsNomenclature));
  return hsIndex;
}

/** The offline answer, with the HS tier when the table leaves part of the description unexplained. */
async function classifyOffline(offline: Pick<OfflineClassifier, 'classify' | 'hsCouldHelp'>, input: ClassifyInput): Promise<Classification> {
  const hs = offline.hsCouldHelp(input) ? await loadHsIndex() : undefined;
  return offline.classify(input, hs);
}

/** Distinct inputs whose offline answers a process keeps (about 1 KB each). */
export const offlineAnswersKept = 20_000;

/**
 * The offline classifier answers the same input the same way (a function of the input and the
 * table), so its answers are kept per table, by input, up to `offlineAnswersKept` (least recently
 * used first out): a manifest repeats its products (a merchant's one article to many consignees),
 * and each repetition costs a lookup instead of a ranking. The answer is shared: callers read it.
 */
export function rememberingOffline(offline: Pick<OfflineClassifier, 'classify' | 'hsCouldHelp'>, kept = offlineAnswersKept): TariffClassifierPort {
  const answers = new Lru<string, Promise<Classification>>(kept);
  return {
    classify(input) {
      // The fields as sent, not `classificationKey`'s normalized words: the figures the classifier
      // reads (`1,5 kW`, `150cc`) and the partner code are part of what decides the answer.
      const key = JSON.stringify([input.description ?? null, input.name ?? null, input.category ?? null, input.hsCode ?? null]);
      const known = answers.get(key);
      if (known) return known;
      const answer = classifyOffline(offline, input);
      answers.set(key, answer);
      answer.catch(() => answers.deleteIf(key, answer));
      return answer;
    },
  };
}

/**
 * The default classifier: the offline classifier of the table in force, behind the Bedrock model
 * when `BEDROCK_MODEL_ID` is set. It is rebuilt only when the table or the model changes, so the
 * index and the answer cache live as long as the table does.
 */
export const tableClassifier: TariffClassifierPort = {
  async classify(input) {
    return (await builtForTable()).port.classify(input);
  },
};

/** The classifier of the table in force, rebuilt when the table or the model changes. */
async function builtForTable(): Promise<NonNullable<typeof built>> {
  const table = await loadTariffTable();
  const modelId = config.bedrockModelId();
  if (!built || built.rows !== table.rows || built.modelId !== modelId) {
    const offline = createOfflineClassifier(table.rows);
    let port: TariffClassifierPort = rememberingOffline(offline);
    if (modelId) {
      // The Bedrock tier and its SDK client are imported here, where first used: a function (or a
      // stage) without a model never loads them (issue 46).
      const { createBedrockClassifier, newBedrockClient } = (await import(bedrockModule)) as typeof import('./bedrock');
      port = createBedrockClassifier({ modelId, offline, client: (bedrockClient ??= traced(newBedrockClient())), hs: loadHsIndex });
    }
    built = { rows: table.rows, modelId, port, offline };
  }
  return built;
}

/** The offline classifier of the table in force, the one `tableClassifier` uses (the review shows its candidates). */
export async function offlineClassifierInForce(): Promise<OfflineClassifier> {
  return (await builtForTable()).offline;
}

let current: TariffClassifierPort = tableClassifier;

export function tariffClassifier(): TariffClassifierPort {
  return current;
}

/** For tests and the twin: another classifier (e.g. a fixed answer). */
export function useTariffClassifier(port: TariffClassifierPort): void {
  current = port;
}
