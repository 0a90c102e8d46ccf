/** An opaque page cursor: a small JSON object as base64url text (the migrations' cursors). */
export const encodeCursor = (c: object): string => Buffer.from(JSON.stringify(c)).toString('base64url');

/** What a cursor text holds, or undefined when it is not base64url JSON; the caller checks its shape. */
export function parseCursor(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}
