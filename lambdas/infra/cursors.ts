import { createHmac, timingSafeEqual } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { traced } from './tracing';
import { ValidationFailed } from '#core/errors';

/**
 * Page cursors, opaque and signed (issue 41, item 5): what a cursor holds (a position, an offset,
 * a DynamoDB key) goes out as base64url with an HMAC-SHA256 of it (16 bytes, 22 characters) after
 * it, keyed with the stage's cursor key; a cursor that comes back changed, made up or of another
 * stage is refused (the route's 422 on its field) before anything is read with it. The key: the
 * twin's `CURSOR_KEY` (its data directory's `cursor.key`), a stage's Secrets Manager secret
 * `CURSOR_KEY_SECRET_ARN` (lib/data.ts), read once per function instance and only by the
 * functions whose routes page by cursor (catalog `uses.cursors`).
 */
const macChars = 22;

let key: Promise<Buffer> | undefined;

function cursorKey(): Promise<Buffer> {
  return (key ??= loadKey().catch((err: unknown) => {
    key = undefined;
    throw err;
  }));
}

async function loadKey(): Promise<Buffer> {
  if (process.env.CURSOR_KEY) return Buffer.from(process.env.CURSOR_KEY, 'utf8');
  const arn = process.env.CURSOR_KEY_SECRET_ARN;
  if (!arn) throw new Error('No cursor key: CURSOR_KEY (the twin) or CURSOR_KEY_SECRET_ARN (a stage) is unset.');
  const res = await traced(new SecretsManagerClient({})).send(new GetSecretValueCommand({ SecretId: arn }));
  if (!res.SecretString) throw new Error('The cursor key secret holds no string.');
  return Buffer.from(res.SecretString, 'utf8');
}

const macOf = (k: Buffer, body: string) => createHmac('sha256', k).update(body).digest().subarray(0, 16).toString('base64url');

/** `text` as a cursor: base64url, then its MAC (the same text always gives the same cursor). */
export async function sealCursor(text: string): Promise<string> {
  const body = Buffer.from(text, 'utf8').toString('base64url');
  return body + macOf(await cursorKey(), body);
}

/** What a cursor `sealCursor` made holds, or undefined for one it did not make (changed, made up, another key's). */
export async function openCursor(cursor: string): Promise<string | undefined> {
  if (typeof cursor !== 'string' || cursor.length <= macChars || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const body = cursor.slice(0, -macChars);
  const given = Buffer.from(cursor.slice(-macChars), 'utf8');
  const expected = Buffer.from(macOf(await cursorKey(), body), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return Buffer.from(body, 'base64url').toString('utf8');
}

/** A small JSON object as a signed cursor (the migrations' and the search's). */
export const encodeCursor = (c: object): Promise<string> => sealCursor(JSON.stringify(c));

/** What a signed JSON cursor holds, or undefined when it is not one `encodeCursor` made; the caller checks its shape. */
export async function parseCursor(cursor: string): Promise<unknown> {
  const text = await openCursor(cursor);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What a list's signed cursor holds, or undefined without one; a 422 on `cursor` for one the list
 * did not answer. A list that checks its record first (a batch of another account is a 404) opens
 * its cursor after that check, so a cursor says nothing of another account's records.
 */
export async function openListCursor(cursor: string | undefined): Promise<string | undefined> {
  if (cursor === undefined) return undefined;
  const text = await openCursor(cursor);
  if (text === undefined) throw new ValidationFailed({ cursor: ['Is not a cursor this list answered; leave it out to start from the first page.'] });
  return text;
}

/** A migration's signed cursor: the id (of an account, a token) to go on with, under its one key. */
export const encodeIdCursor = (key: string, id: number): Promise<string> => encodeCursor({ [key]: id });

/** The id a migration's cursor holds; a 422 on `cursor` for one this migration did not answer (`first`: where to start instead). */
export async function decodeIdCursor(cursor: string, key: string, first: string): Promise<number> {
  const c = await parseCursor(cursor);
  const id = typeof c === 'object' && c !== null && Object.keys(c).length === 1 ? (c as Record<string, unknown>)[key] : undefined;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) throw new ValidationFailed({ cursor: [`Is not a cursor this command answered; leave it out to start from the first ${first}.`] });
  return id;
}
