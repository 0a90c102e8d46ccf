/**
 * Writes the events section of docs/partners/webhooks.md (between its `events` markers) from
 * openapi.json's `webhooks`, which is made from the one declaration of every event's payload
 * (lambdas/http/webhooks/event-payloads.ts): for each event what it means, when it fires, a table
 * of its `data` fields and an example delivery body. Never edited by hand: `npm run catalog:events`
 * writes it; test/docs/webhook-events.test.ts rewrites it when stale and fails once, so the change
 * is seen and committed.
 */
import { writeFileSync } from 'node:fs';
import { withSection } from './doc-markers';
import { join } from 'node:path';
import { serviceDocument } from '#http/system/openapi';
import { projectRoot } from '#lib/functions';

type Json = Record<string, any>;

export const webhooksDoc = join(projectRoot, 'docs', 'partners', 'webhooks.md');
const begin = '<!-- events: generated from lambdas/http/webhooks/event-payloads.ts by npm run catalog:events; do not edit -->';
const end = '<!-- events: end -->';

/** A JSON Schema's type in words: `integer`, `string or null`, `array of object`... */
function typeOf(s: Json): string {
  if (s.anyOf) return s.anyOf.map(typeOf).join(' or ');
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (s.enum) return s.enum.map((e: unknown) => `\`${e}\``).join(', ');
  if (s.type === 'string' && s.format === 'date-time') return 'timestamp';
  if (s.type === 'array') return `array of ${typeOf(s.items ?? {})}`;
  if (s.type === 'object' && !s.properties && s.additionalProperties) return `object of ${typeOf(s.additionalProperties)}`;
  return s.type ?? 'any';
}

/** The object a field holds, directly or in an array or a nullable, whose fields get rows of their own. */
function inner(s: Json): Json | undefined {
  if (s.type === 'object' && s.properties) return s;
  if (s.type === 'array' && s.items) return inner(s.items);
  if (s.anyOf) for (const branch of s.anyOf) if (inner(branch)) return inner(branch);
  return undefined;
}

function descriptionOf(s: Json): string {
  return s.description ?? s.anyOf?.find((b: Json) => b.description)?.description ?? '';
}

function rows(object: Json, prefix: string): string[] {
  const out: string[] = [];
  const required = new Set<string>(object.required ?? []);
  for (const [name, s] of Object.entries<Json>(object.properties ?? {})) {
    const path = prefix + name;
    const type = typeOf(s) + (required.has(name) ? '' : ', optional');
    out.push(`| \`${path}\` | ${type} | ${descriptionOf(s).replace(/\|/g, '\\|')} |`);
    const nested = inner(s);
    if (nested) out.push(...rows(nested, path + (typeOf(s).startsWith('array') ? '[].' : '.')));
  }
  return out;
}

/** An example body: the envelope and each field of its `data` on a line of its own, what a field holds on that line. */
function exampleText(example: Json): string {
  const { data, ...envelope } = example;
  const fields = Object.entries<unknown>(data).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  const head = Object.entries<unknown>(envelope).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
  return ['{', ...head, '  "data": {', fields.join(',\n'), '  }', '}'].join('\n');
}

/** The section as the document has it now. */
export function eventsSection(): string {
  const webhooks = serviceDocument().webhooks as Record<string, { post: Json }>;
  const names = Object.keys(webhooks);
  const lines = ['| Event | What it means |', '|---|---|', ...names.map((n) => `| [\`${n}\`](#${n.replace(/\W/g, '')}) | ${webhooks[n].post.summary} |`), ''];
  for (const name of names) {
    const op = webhooks[name].post;
    const media = op.requestBody.content['application/json'];
    lines.push(`#### \`${name}\``, '', `${op.summary}. ${op.description ?? ''}`.trim(), '');
    lines.push('| `data` field | Type | Meaning |', '|---|---|---|', ...rows(media.schema.properties.data, ''), '');
    if (media.example) lines.push('<details><summary>Example delivery body</summary>', '', '```json', exampleText(media.example), '```', '', '</details>', '');
  }
  return `${begin}\n${lines.join('\n')}\n${end}`;
}

/** webhooks.md with its events section as the declaration has it now. */
export function webhooksDocText(): string {
  return withSection(webhooksDoc, begin, end, eventsSection(), 'events');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  writeFileSync(webhooksDoc, webhooksDocText());
  console.log(`wrote the events section of ${webhooksDoc}`);
}
