import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { searchNomenclature } from '#services/tariff/ncm-search';
import { CustomsNcmSearch } from '#catalog/customs';

/** GET /v1/customs/tariff/ncm: the NCM picker's search, by words (Spanish or English) or by code prefix. */
export const handler = route(CustomsNcmSearch.schemas, async ({ query }) => {
  const { data, meta } = await searchNomenclature(query.q, query.limit);
  return ok(data, { extra: { meta } });
});
