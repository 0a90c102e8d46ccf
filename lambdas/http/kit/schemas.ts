import * as v from 'valibot';
import { safeIdentifier } from '#core/identifier';

/** A positive integer id in a path: anything else names no record (404). */
export const IdParam = v.pipe(v.string(), v.regex(/^[1-9]\d{0,14}$/), v.transform(Number));
export const IdParams = v.object({ id: IdParam });
/** A token's revocation: `cascade=true` also revokes the tokens it issued and disables the webhook subscriptions it made. */
export const RevokeQuery = v.strictObject({ cascade: v.optional(v.picklist(['true', 'false'])) });

/** An integer query value sent as text, within bounds. */
export const intQuery = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d{1,15}$/, 'Must be a whole number.'),
    v.transform(Number),
    v.minValue(min, `Must be at least ${min}.`),
    v.maxValue(max, `Must be at most ${max}.`),
  );

/** A trimmed, non-empty string of at most `max` characters without control characters; `empty`: what an empty one is told. */
export const text = (max: number, empty = 'Must not be empty.') =>
  v.pipe(
    v.string('Must be a string.'),
    v.trim(),
    v.nonEmpty(empty),
    v.maxLength(max, `Must be at most ${max} characters.`),
    v.regex(/^[^\u0000-\u001f\u007f]*$/, 'Must not contain control characters.'),
  );

/** `text` for identifiers (AWB, manifest id, SKU): no bidirectional controls or unpaired surrogates either. */
export const identifier = (max: number) =>
  v.pipe(v.string('Must be a string.'), v.trim(), v.nonEmpty('Must not be empty.'), v.maxLength(max, `Must be at most ${max} characters.`), safeIdentifier);

const notACursor = 'Is not a cursor this list answered; leave it out to start from the first page.';
/** A cursor a list answered (signed: services/cursors.ts), `max` characters at most; whether it is one is the list's own check (422 on cursor). */
export const cursorParam = (max: number) => v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/, notACursor), v.maxLength(max, notACursor));
