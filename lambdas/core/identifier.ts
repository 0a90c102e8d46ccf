import * as v from 'valibot';

/**
 * What an identifier (an AWB, a MAWB, a manifest, batch or order id, an item key, a SKU) may not
 * hold, whatever else its field allows:
 * - control characters: C0, DEL and C1 (U+0080-U+009F), which no label or log shows;
 * - bidirectional controls (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069): U+202E makes
 *   `AWB123` and `321BWA` look alike, so an id would read as another one;
 * - unpaired surrogates (`\p{Cs}` in a `u` regex matches only a surrogate without its pair): they
 *   are not text, and UTF-8 (DynamoDB, S3, JSON files) turns them into U+FFFD, so the id stored
 *   would not be the id sent.
 */
const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\p{Cs}/u;

export const unsafeIdentifierMessage = 'Must not contain control characters, bidirectional controls or unpaired surrogates.';

export function isSafeIdentifier(s: string): boolean {
  return !unsafe.test(s);
}

/** A pipe action for identifier fields: 422 on the field when the text holds any of the above. */
export const safeIdentifier = v.check<string, string>(isSafeIdentifier, unsafeIdentifierMessage);
