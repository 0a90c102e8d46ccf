import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the ten slowest tests at the end of every run (docs/developers/testing.md: no test over
 * 30 s on a quiet machine), so a test that grows is seen in the run that made it grow.
 */
export default class SlowestTests implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const tests = modules.flatMap((m) => [...m.children.allTests()].map((t) => ({ name: `${m.moduleId.replace(`${process.cwd()}/`, '')} > ${t.fullName}`, ms: t.diagnostic()?.duration ?? 0 })));
    const slowest = tests.sort((a, b) => b.ms - a.ms).slice(0, 10);
    if (slowest.length === 0) return;
    const lines = slowest.map((t) => `  ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${t.name.length > 150 ? `${t.name.slice(0, 147)}...` : t.name}`);
    process.stdout.write(`\nThe ten slowest tests:\n${lines.join('\n')}\n`);
  }
}
