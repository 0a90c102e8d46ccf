import { getMemories, memoryCount, type MemoryRecord } from '../entities/review';

/**
 * The partner-code memory as the pipeline's tariff stage reads it (what brokers decided for an
 * account's products; services/review writes it). The default reads the table; tests and tools
 * may give another.
 */
export interface TariffMemoryPort {
  /**
   * The account's remembered products among these keys (none when it has no memory); `keys` is
   * called only when it has some, so a page of an account without memory hashes nothing.
   */
  lookup(accountId: number, keys: () => readonly string[]): Promise<Map<string, Pick<MemoryRecord, 'ncmCode' | 'decidedAt' | 'decidedBy' | 'batchId' | 'awb' | 'revision'>>>;
}

export const tableMemory: TariffMemoryPort = {
  async lookup(accountId, keys) {
    if (!(await memoryCount(accountId))) return new Map();
    return getMemories(accountId, [...new Set(keys())]);
  },
};

let current: TariffMemoryPort = tableMemory;

export function tariffMemory(): TariffMemoryPort {
  return current;
}

/** For tests: another memory (an empty one, fixed answers). */
export function useTariffMemory(port: TariffMemoryPort): void {
  current = port;
}
