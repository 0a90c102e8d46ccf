import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../lib/functions';
import { stages } from '../../lib/stage';
import { writeStageTemplates } from '../support/cdk';
import { onPath, toolAvailable } from '../support/tools';

/**
 * cfn-lint (the machine's Python, see the README's "Static checks of the stacks") on every
 * template `cdk synth` writes for each stage: the data stack, the api stack and each of its nested
 * route stacks. Run without a config and compared here with the rules `.cfnlintrc.yaml` accepts,
 * so an accepted rule that no template gives any more is reported too.
 */

interface Finding {
  Filename: string;
  Level: 'Error' | 'Warning' | 'Informational';
  Message: string;
  Location: { Path?: (string | number)[] };
  Rule: { Id: string };
}

/** The rules .cfnlintrc.yaml ignores, each with the reason written on its line. */
function acceptedRules(): { rule: string; reason: string }[] {
  const text = readFileSync(join(projectRoot, '.cfnlintrc.yaml'), 'utf8');
  const block = text.split(/^ignore_checks:\s*$/m)[1] ?? '';
  const out: { rule: string; reason: string }[] = [];
  for (const line of block.split('\n')) {
    if (/^\S/.test(line)) break;
    const m = /^\s+-\s+([EWI]\d{4})\s*(?:#\s*(.*))?$/.exec(line);
    if (m) out.push({ rule: m[1], reason: (m[2] ?? '').trim() });
  }
  return out;
}

/** Runs cfn-lint on some templates (in a directory of its own, so no .cfnlintrc is read) and answers its findings. */
function cfnLint(files: string[], cwd: string): Promise<Finding[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('cfn-lint', ['--format', 'json', '--', ...files], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      // 0: nothing found; 2, 4, 6, 8 and their sums: errors, warnings, informational findings.
      try {
        const findings = JSON.parse(stdout || '[]') as Finding[];
        if (code === 1 || !Array.isArray(findings)) throw new Error(`exit ${code}`);
        resolve(findings);
      } catch (err) {
        reject(new Error(`cfn-lint did not report (${(err as Error).message}): ${stderr || stdout}`));
      }
    });
  });
}

const lintable = toolAvailable('cfn-lint', 'cfn-lint on the synthesized templates of dev, staging and prod');

describe('cfn-lint', () => {
  it('accepts each warning in .cfnlintrc.yaml with a written reason, and no error', () => {
    const accepted = acceptedRules();
    expect(accepted.length).toBeGreaterThan(0);
    for (const a of accepted) {
      expect(a.rule, `${a.rule} is an error: errors are fixed, never accepted`).toMatch(/^W/);
      expect(a.reason.length, `${a.rule} has no reason`).toBeGreaterThan(40);
    }
  });

  it.skipIf(!lintable)(
    'finds no error and no warning beyond the accepted ones in any template of dev, staging and prod',
    async () => {
      if (!onPath('cfn-lint')) throw new Error('cfn-lint is not on the PATH, and CI_REQUIRE_CLOUD_TOOLS=1 requires it (pip install cfn-lint)');
      const dir = mkdtempSync(join(tmpdir(), 'despacho-cfn-lint-'));
      try {
        const started = Date.now();
        const templates = Object.fromEntries(stages.map((stage) => [stage, writeStageTemplates(stage, join(dir, stage))]));
        const synthMs = Date.now() - started;
        // One cfn-lint per stage, side by side (each takes about 15 s of one CPU).
        const findings = (await Promise.all(stages.map((stage) => cfnLint(templates[stage], dir)))).flat();
        console.info(`cfn-lint: ${Object.values(templates).flat().length} templates of ${stages.join(', ')}; synth ${synthMs} ms, lint ${Date.now() - started - synthMs} ms`);

        const accepted = new Set(acceptedRules().map((a) => a.rule));
        const shown = (f: Finding) => `${f.Rule.Id} ${basename(f.Filename)} ${(f.Location.Path ?? []).join('/')}: ${f.Message}`;
        expect(findings.filter((f) => f.Level === 'Error').map(shown)).toEqual([]);
        expect(findings.filter((f) => f.Level === 'Warning' && !accepted.has(f.Rule.Id)).map(shown)).toEqual([]);
        // Every stage's templates still give each accepted warning: a stale entry is removed, not kept.
        for (const stage of stages) {
          const given = new Set(findings.filter((f) => f.Filename.startsWith(join(dir, stage) + '/')).map((f) => f.Rule.Id));
          for (const rule of accepted) expect(given.has(rule), `${rule} accepted, but no ${stage} template gives it`).toBe(true);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    // The alarms (about 300 per stage, lib/observability.ts) give cfn-lint a third more to read;
    // on a shared two-core machine the lint of the three stages took 186 s.
    300_000,
  );
});
