import * as v from 'valibot';
import { cursorParam, identifier, intQuery, text } from '../kit/schemas';
import { batchStatuses } from '#core/manifests/model';
import { maxQueryLength, searchKinds } from '#core/search/index-terms';

export const ReviewPathParams = v.object({ manifest: v.pipe(v.string(), v.minLength(1), v.maxLength(100)) });

export const ClassificationParams = v.object({ manifest: v.pipe(v.string(), v.minLength(1), v.maxLength(100)), awb: identifier(100) });

export const reviewPerPage = { default: 25, max: 200 } as const;

/** What `next_cursor` answered (it holds the page's last item key): the page starts after it. */
export const ReviewQueueQuery = v.object({
  cursor: v.optional(cursorParam(400)),
  per_page: v.optional(intQuery(1, reviewPerPage.max), String(reviewPerPage.default)),
});

export const ReviewDecisionsQuery = v.object({
  cursor: v.optional(cursorParam(2800)),
  per_page: v.optional(intQuery(1, 100), '25'),
});

export const ClassificationBody = v.object({
  ncm_code: v.pipe(v.string('Must be a string.'), v.trim(), v.regex(/^\d{4}\.?\d{2}\.?\d{2}$/, 'Must be an 8-digit NCM, e.g. 6109.10.00 or 61091000.')),
  reason: text(500),
  /** Which product of the AWB, when it has more than one. */
  item_key: v.optional(identifier(200)),
});

export const QuotaParams = v.object({ tax_id: v.pipe(v.string(), v.minLength(1), v.maxLength(20)) });

export const QuotaQuery = v.object({ year: v.optional(intQuery(2000, 2100)) });

export const BatchQueueQuery = v.object({
  cursor: v.optional(cursorParam(2800)),
  per_page: v.optional(intQuery(1, 100), '15'),
  status: v.optional(v.picklist(batchStatuses.filter((s) => s !== 'receiving'), 'Must be one of pending, processing, completed, failed.')),
});

/** A group of the review queue (issue 40): its id as the groups list answers it. */
export const GroupParams = v.object({
  manifest: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  group: v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/, 'Must be a group_id the groups list answered (16 hex characters).')),
});

/** The place in the groups' order where the page starts (what `next_cursor` answers). */
export const ReviewGroupsQuery = v.object({
  cursor: v.optional(cursorParam(100)),
  per_page: v.optional(intQuery(1, 100), '25'),
});

export const GroupClassificationBody = v.object({
  ncm_code: ClassificationBody.entries.ncm_code,
  reason: text(500),
});

/** The inbox (issue 40): batches created since a date (90 days back by default), the flights a page at a time. */
export const InboxQuery = v.object({
  since: v.optional(
    v.pipe(
      v.string('Must be a date (2026-11-01) or an ISO 8601 UTC timestamp.'),
      v.regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z)?$/, 'Must be a date (2026-11-01) or an ISO 8601 UTC timestamp.'),
      v.check((s) => !Number.isNaN(Date.parse(s)) && new Date(s).toISOString().slice(0, 10) === s.slice(0, 10), 'Must be a date that exists.'),
      v.transform((s) => new Date(s).toISOString()),
    ),
  ),
  cursor: v.optional(cursorParam(100)),
  per_page: v.optional(intQuery(1, 100), '20'),
});

/** GET /v1/couriers/review/search (issue 40): one field, every kind; `kind` and `cursor` page one kind. */
export const SearchQuery = v.object({
  q: text(maxQueryLength, 'Must not be empty: type a guía, manifest, AWB, tax id, name, document or product words.'),
  kind: v.optional(v.picklist(searchKinds, `Must be one of ${searchKinds.join(', ')}.`)),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(200))),
  per_page: v.optional(intQuery(1, 50), '10'),
});
