import { afterEach, beforeEach } from 'vitest';
import { logger } from '#shared/logger';

/**
 * The service logger's lines while a test runs, parsed from the JSON it prints (the suite runs it
 * silent; here it logs at INFO into this array instead of the console).
 */
export function useLogLines(): Record<string, any>[] {
  const lines: Record<string, any>[] = [];
  const out = (logger as unknown as { console: Record<string, (text: string) => void> }).console;
  const saved: Record<string, (text: string) => void> = {};
  beforeEach(() => {
    lines.length = 0;
    for (const level of ['info', 'warn', 'error']) {
      saved[level] = out[level];
      out[level] = (text: string) => void lines.push(JSON.parse(text));
    }
    logger.setLogLevel('INFO');
  });
  afterEach(() => {
    logger.setLogLevel('SILENT');
    Object.assign(out, saved);
  });
  return lines;
}
