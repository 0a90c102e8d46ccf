import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { StageOverrides } from '#lib/stage';
import { referenceProd, referenceStaging } from './cdk';

/**
 * What cfn-lint reads of the three stages, and how it is run.
 *
 * cfn-lint's time is per resource (about 10 ms each of one CPU), and staging and prod are dev with
 * other settings (lib/stage.ts): most of their resources are dev's but for the stage's name. So a
 * resource already linted in an earlier stage (equal to it once the values of the stage's reference
 * settings, the stage's name, the hashes the CDK derives from it and the assets' hashes are masked:
 * prod is staging but for its account, domain, certificates and budget) is not linted again: each later stage's
 * template keeps only its resources that differ (retention, log level, removal policies, ...),
 * with every resource they reference (Ref, GetAtt, DependsOn, Sub) and those its outputs do, so
 * what is linted is still a whole, valid template. Of the three stages' 5,775 resources, about 3,700 are linted.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export interface Template {
  Resources: Record<string, Json>;
  Outputs?: Record<string, Json>;
  Parameters?: Record<string, Json>;
  Rules?: Record<string, Json>;
  [section: string]: unknown;
}

/** The reference settings each stage is synthesized with (test/support/cdk.ts). */
const referenceSettings: Record<string, StageOverrides> = { prod: referenceProd, staging: referenceStaging };

/**
 * A template's text with what differs between stages only by name masked: the values of the
 * stage's reference settings (by setting: prod's account and staging's are both `<account>`),
 * the stage, the hashes derived from it, the assets' hashes, the hash in a function version's id.
 */
export function maskStage(stage: string, text: string): string {
  const settings = Object.entries(referenceSettings[stage] ?? {})
    .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].length > 0)
    .sort((a, b) => b[1].length - a[1].length);
  for (const [name, value] of settings) text = text.replaceAll(value, `<${name}>`);
  return text
    .replaceAll(`Despacho${stage}`, 'DespachoSTAGE')
    .replace(new RegExp(`\\b${stage}\\b`, 'g'), 'STAGE')
    .replace(/[A-Za-z-]*DespachoSTAGE[A-Za-z0-9]*/g, (id) => id.replace(/[0-9A-F]{8}/g, 'HASH'))
    .replace(/\b[0-9a-f]{64}\b/g, 'ASSET')
    // A function version's logical id ends with a hash of the function's settings (the function itself is compared as is).
    .replace(/(CurrentVersion[0-9A-F]{8})[0-9a-f]{32}\b/g, '$1VERSION');
}

/** The logical ids a piece of a template names: Ref, Fn::GetAtt, DependsOn and Fn::Sub's `${Id}` / `${Id.Attr}`. */
export function namedIds(node: Json | undefined, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) namedIds(item, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'Ref' && typeof value === 'string') out.add(value);
      else if (key === 'Fn::GetAtt') out.add(Array.isArray(value) ? String(value[0]) : String(value).split('.')[0]);
      else if (key === 'DependsOn') for (const id of [value].flat()) out.add(String(id));
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(value) ? value[0] : value;
        for (const m of String(text).matchAll(/\$\{([^!}][^}.]*)[^}]*\}/g)) out.add(m[1]);
      }
      namedIds(value, out);
    }
  }
  return out;
}

/** The mappings a piece of a template reads (`Fn::FindInMap`). */
function mappingNames(node: Json | undefined, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) mappingNames(item, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'Fn::FindInMap' && Array.isArray(value) && typeof value[0] === 'string') out.add(value[0]);
      mappingNames(value, out);
    }
  }
  return out;
}

/**
 * The part of `template` (stage `stage`, file `file`) not linted yet: `seen` holds the masked
 * resources of the stages linted before, and this template's are added to it. Answers the
 * template itself when every resource is new, and undefined when none is.
 */
export function unseenPart(stage: string, file: string, template: Template, seen: Set<string>): Template | undefined {
  const resources = template.Resources;
  const key = (id: string) => maskStage(stage, `${basename(file)} ${id} ${JSON.stringify(resources[id])}`);
  const kept = new Set(Object.keys(resources).filter((id) => !seen.has(key(id))));
  for (const id of Object.keys(resources)) seen.add(key(id));
  if (kept.size === Object.keys(resources).length) return template;
  if (kept.size === 0) return undefined;
  const todo = [...kept, ...[...namedIds(template.Outputs as Json)].filter((id) => id in resources)];
  for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
    kept.add(id);
    for (const named of namedIds(resources[id])) if (named in resources && !kept.has(named)) todo.push(named);
  }
  const part: Template = { ...template, Resources: Object.fromEntries(Object.entries(resources).filter(([id]) => kept.has(id))) };
  if (template.Parameters) {
    // A parameter only the left-out resources used would be an unused parameter (W2001).
    const used = namedIds({ r: part.Resources, o: (part.Outputs ?? {}) as Json, x: (part.Rules ?? {}) as Json });
    part.Parameters = Object.fromEntries(Object.entries(template.Parameters).filter(([name]) => used.has(name)));
  }
  if (template.Mappings) {
    // Likewise a mapping only the left-out resources read (W7001); none left, no Mappings section.
    const read = mappingNames({ r: part.Resources, o: (part.Outputs ?? {}) as Json, c: (part.Conditions ?? {}) as Json });
    const kept = Object.entries(template.Mappings as Record<string, Json>).filter(([name]) => read.has(name));
    if (kept.length) part.Mappings = Object.fromEntries(kept);
    else delete part.Mappings;
  }
  return part;
}

/** Writes over each later stage's template the part of it not linted yet; answers the files to lint, with their resource counts. */
export function lintableFiles(templates: { stage: string; files: string[]; read(file: string): Template }[]): { file: string; resources: number }[] {
  const seen = new Set<string>();
  const out: { file: string; resources: number }[] = [];
  for (const { stage, files, read } of templates) {
    for (const file of files) {
      const template = read(file);
      const part = unseenPart(stage, file, template, seen);
      if (!part) continue;
      if (part !== template) writeFileSync(file, JSON.stringify(part, null, 1));
      out.push({ file, resources: Object.keys(part.Resources).length });
    }
  }
  return out;
}

/** `files` in `n` groups of about the same number of resources (largest first, each to the lightest group). */
export function balanced<T extends { resources: number }>(files: T[], n: number): T[][] {
  const groups = Array.from({ length: Math.max(1, Math.min(n, files.length)) }, () => ({ load: 0, files: [] as T[] }));
  for (const f of [...files].sort((a, b) => b.resources - a.resources)) {
    const lightest = groups.reduce((a, b) => (b.load < a.load ? b : a));
    lightest.files.push(f);
    lightest.load += f.resources;
  }
  return groups.map((g) => g.files).filter((g) => g.length);
}

export interface Finding {
  Filename: string;
  Level: 'Error' | 'Warning' | 'Informational';
  Message: string;
  Location: { Path?: (string | number)[] };
  Rule: { Id: string };
}

/** Runs cfn-lint on some templates (in a directory of its own, so no .cfnlintrc is read) and answers its findings. */
export function cfnLint(files: string[], cwd: string): Promise<Finding[]> {
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
