import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { createOfflineClassifier, type Classification, type ClassifyInput } from '../../core/tariff/classifier';
import { config } from '../../shared/config';
import { createBedrockClassifier } from './bedrock';
import { loadTariffTable, type TariffTable } from './table-source';
import { traced } from '../tracing';

export interface TariffClassifierPort {
  classify(input: ClassifyInput): Promise<Classification>;
}

let built: { rows: TariffTable['rows']; modelId: string | undefined; port: TariffClassifierPort } | undefined;
let bedrockClient: BedrockRuntimeClient | undefined;

/**
 * The default classifier: the offline classifier of the table in force, behind the Bedrock model
 * when `BEDROCK_MODEL_ID` is set. It is rebuilt only when the table or the model changes, so the
 * index and the answer cache live as long as the table does.
 */
export const tableClassifier: TariffClassifierPort = {
  async classify(input) {
    const table = await loadTariffTable();
    const modelId = config.bedrockModelId();
    if (!built || built.rows !== table.rows || built.modelId !== modelId) {
      const offline = createOfflineClassifier(table.rows);
      let port: TariffClassifierPort = { classify: async (i) => offline.classify(i) };
      if (modelId) port = createBedrockClassifier({ modelId, offline, client: (bedrockClient ??= traced(new BedrockRuntimeClient({}))) });
      built = { rows: table.rows, modelId, port };
    }
    return built.port.classify(input);
  },
};

let current: TariffClassifierPort = tableClassifier;

export function tariffClassifier(): TariffClassifierPort {
  return current;
}

/** For tests and the twin: another classifier (e.g. a fixed answer). */
export function useTariffClassifier(port: TariffClassifierPort): void {
  current = port;
}
