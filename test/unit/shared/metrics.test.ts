import { afterEach, describe, expect, it, vi } from 'vitest';
import { metricsSnapshot, recordMetric } from '#shared/metrics';

/**
 * In Lambda every metric is one embedded-metric-format line on standard output, at once; the
 * suite turns those lines off (POWERTOOLS_METRICS_DISABLED in vitest.config.ts) to keep its log
 * readable, so this test turns them on again (Powertools reads it when the first metric is emitted)
 * to check the line itself.
 */
describe('recordMetric in Lambda', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('writes one EMF line with the metric, its unit and one dimension set, and keeps the tally', () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'despacho-dev-OrdersCreate');
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('STAGE', 'dev');
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    recordMetric('OrdersCreated', 1, { by: 'meli' });
    vi.mocked(process.stdout.write).mockRestore();
    const emf = lines.map((l) => JSON.parse(l)).find((l) => l._aws);
    expect(emf).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: 'Despacho', Dimensions: [['service', 'stage', 'group', 'channel']], Metrics: [{ Name: 'OrdersCreated', Unit: 'Count' }] }] },
      service: 'despacho',
      stage: 'dev',
      group: 'orders',
      channel: 'meli',
      OrdersCreated: 1,
    });
    expect(metricsSnapshot().metrics.find((m) => m.name === 'OrdersCreated')).toMatchObject({ samples: 1, sum: 1, dimensions: { channel: 'meli' } });
  });
});
