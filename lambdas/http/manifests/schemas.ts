import * as v from 'valibot';
import { batchStatuses, downloadFormats } from '#core/manifests/model';
import { downloadLangs } from '#core/manifests/product-table';
import { identifier, intQuery } from '../kit/schemas';

export const CourierParams = v.object({ courier: v.pipe(v.string(), v.maxLength(50)) });

export const SubmissionStatusParams = v.object({ courier: v.pipe(v.string(), v.maxLength(50)), idempotencyKey: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) });

export const BaseKeyParams = v.object({ baseIdempotencyKey: v.pipe(v.string(), v.uuid()) });

export const BatchIdParams = v.object({ batchId: v.pipe(v.string(), v.minLength(1), v.maxLength(100)) });

export const DecisionsParams = v.object({ manifest: v.pipe(v.string(), v.minLength(1), v.maxLength(100)), batch: v.pipe(v.string(), v.minLength(1), v.maxLength(100)) });

/** A calendar date as Y-m-d that exists (2026-02-30 does not). */
const ymd = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a date as Y-m-d, e.g. 2026-11-21.'),
  v.check((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
  }, 'Must be a real calendar date.'),
);

export const manifestsPerPage = { default: 15, max: 100 } as const;

export const ManifestListQuery = v.pipe(
  v.object({
    page: v.optional(intQuery(1, 100_000), '1'),
    per_page: v.optional(intQuery(1, manifestsPerPage.max), String(manifestsPerPage.default)),
    status: v.optional(v.picklist(batchStatuses.filter((s) => s !== 'receiving'), 'Must be one of pending, processing, completed, failed.')),
    date_from: v.optional(ymd),
    date_to: v.optional(ymd),
  }),
  v.forward(
    v.partialCheck([['date_from'], ['date_to']], (q) => !q.date_from || !q.date_to || q.date_from <= q.date_to, 'Must not be before date_from.'),
    ['date_to'],
  ),
);

export const BatchStatusBody = v.object({
  manifests: v.pipe(
    v.array(identifier(100), 'Must be an array of manifest ids.'),
    v.minLength(1, 'Send at least 1 manifest id.'),
    v.maxLength(50, 'Send at most 50 manifest ids.'),
  ),
});

export const decisionsPerPage = { default: 100, max: 1000 } as const;

export const DecisionsQuery = v.object({
  page: v.optional(intQuery(1, 1_000_000), '1'),
  per_page: v.optional(intQuery(1, decisionsPerPage.max), String(decisionsPerPage.default)),
});

export const ManifestPathParams = v.object({ manifest: v.pipe(v.string(), v.minLength(1), v.maxLength(100)) });

export const DownloadQuery = v.object({
  format: v.optional(v.picklist(downloadFormats, `Must be one of ${downloadFormats.join(', ')}.`), 'json'),
  /** The csv's and the xlsx's column and sheet names: en (the API's field names, the default) or es (issue 40). */
  lang: v.optional(v.picklist(downloadLangs, `Must be one of ${downloadLangs.join(', ')}.`), 'en'),
});
