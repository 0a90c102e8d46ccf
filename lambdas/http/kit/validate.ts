import * as v from 'valibot';
import { ValidationFailed, emptyFieldErrors, type FieldErrors } from '#core/errors';

/** Validates input; failures become 422 with one entry per field, named by the path the client sent. */
export function validate<S extends v.GenericSchema>(schema: S, input: unknown, prefix?: string): v.InferOutput<S> {
  const res = v.safeParse(schema, input, { abortPipeEarly: true });
  if (res.success) return res.output;
  throw new ValidationFailed(fieldErrors(res.issues, prefix));
}

export function fieldErrors(issues: readonly v.BaseIssue<unknown>[], prefix?: string): FieldErrors {
  const errors = emptyFieldErrors();
  for (const issue of issues) {
    const path = v.getDotPath(issue) ?? (prefix ? '' : 'body');
    const key = [prefix, path].filter(Boolean).join('.') || 'body';
    (errors[key] ??= []).push(issue.message);
  }
  return errors;
}
