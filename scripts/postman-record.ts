/**
 * The twin's own answers, recorded: each route's success answer to its example request (the
 * Postman collection run against a fresh twin) and the failures every route shares. openapi.json
 * gives them as its responses' examples, so the reference, the collection's saved responses and
 * the mock (`npm run mock`) show what the service really answers. `npm run postman:record`
 * rewrites the file (test/integration/system/postman.test.ts with POSTMAN_RECORD=1), then
 * `npm run postman:generate`.
 */
import { join } from 'node:path';
import { projectRoot } from '#lib/functions';

export const recordedAnswersFile = join(projectRoot, 'lambdas', 'http', 'system', 'recorded-answers.json');

export interface RecordedAnswers {
  /** By route id: the status and JSON body of its example request. */
  success: Record<string, { status: number; body: unknown }>;
  /** By status: a failure body any route gives. */
  failure: Record<string, unknown>;
}

/** Lists cut to their first 3 entries: an example shows the shape, not a whole page. */
function trim(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 3).map(trim);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trim(v)]));
  return value;
}

/** A JSON answer as an example (undefined for a page, a file, or an answer over 20 KB once trimmed). */
export function trimmedExample(contentType: string | null, text: string): unknown {
  if (!contentType?.includes('application/json')) return undefined;
  const body = trim(JSON.parse(text));
  return JSON.stringify(body).length > 20_000 ? undefined : body;
}
