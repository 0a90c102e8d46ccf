import * as v from 'valibot';
import { intQuery } from '#http/kit/schemas';

export const ManifestParams = v.object({ manifest: v.pipe(v.string(), v.minLength(1), v.maxLength(100)) });

export const AlternativeListQuery = v.object({
  page: v.optional(intQuery(1, 100_000), '1'),
  per_page: v.optional(intQuery(1, 100), '15'),
});

export const productsPerPage = { default: 1000, max: 1000 } as const;

export const AlternativeShowQuery = v.object({
  page: v.optional(intQuery(1, 1_000_000), '1'),
  per_page: v.optional(intQuery(1, productsPerPage.max), String(productsPerPage.default)),
});
