import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // A test's timeout is the bound on a hang, not its speed: a test that takes 10 s quiet took
    // over 30 s with two CPU-heavy jobs and a second test file beside it (issue 45). Speed is
    // watched by the ten slowest tests printed at the end of every run.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two files at a time on two cores: most of a file's wall time is waiting (DynamoDB Local, Chromium, child
    // processes), so the second worker runs in it (measured: 24 integration files 156 s with one, 118 s with two,
    // 116 s with three). Vitest's default is one worker less than the CPUs, one here.
    maxWorkers: 2,
    // What the code under test logs is shown for failed tests only; the ten slowest close every run.
    silent: 'passed-only',
    reporters: ['default', './test/support/slowest-reporter.ts'],
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      LOG_LEVEL: 'SILENT',
      // The functions the cloud lane runs in this process are "in Lambda" and would print an EMF line
      // per metric (Powertools writes them past the runner's capture); test/unit/shared/metrics.test.ts checks the line.
      POWERTOOLS_METRICS_DISABLED: 'true',
      // The suite's webhook receivers listen on 127.0.0.1 (test/integration/webhooks/targets.test.ts turns it off).
      WEBHOOK_LOCAL_RECEIVERS: '1',
    },
  },
});
