import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { ok } from '../kit/reply';
import { UnsupportedMediaType, ValidationFailed } from '#core/errors';
import { parseTariffCsv } from '#core/tariff/table';
import { importTariff, tariffStatus } from '#services/tariff/tariff';

/**
 * Room for a whole NCM table (about 10,000 rows with synonyms) while staying under Lambda's 6 MB
 * request limit even when the gateway hands the body over base64-encoded (4 MB x 4/3).
 */
export const tariffBodyBytes = 4_000_000;
/** A file with more bad lines lists the first ones; the message gives the total. */
const listedErrors = 100;

const replace = route({ bodyMode: 'raw', maxBodyBytes: tariffBodyBytes }, async ({ rawBody, headers, principal }) => {
  const media = headers['content-type']?.split(';')[0].trim().toLowerCase();
  if (media !== 'text/csv' && media !== 'text/plain') throw new UnsupportedMediaType('Send the tariff table as text/csv (ncm,description,duty_rate[,description_en][,keywords]).');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(rawBody ?? new Uint8Array());
  } catch {
    throw new ValidationFailed({ file: ['The file is not UTF-8 text.'] }, 'The tariff file is not UTF-8 text; nothing was stored.');
  }
  const { rows, errors } = parseTariffCsv(text);
  if (errors.length) {
    const listed = Object.fromEntries(errors.slice(0, listedErrors).map((e) => [`line ${e.line}`, [e.message]]));
    const more = errors.length > listedErrors ? ` (the first ${listedErrors} are listed)` : '';
    throw new ValidationFailed(listed, `${errors.length} line${errors.length === 1 ? ' is' : 's are'} invalid${more}; nothing was stored.`);
  }
  const result = await importTariff(rows, `${principal.tokenId} ${principal.tokenName}`);
  return ok(
    { source: 'imported', rows: result.rows, version: result.version, imported_at: result.at, replaced_version: result.replaced },
    { message: `Tariff table imported: ${result.rows} rows.` },
  );
});

const show = route({}, async () => {
  const { meta, classifier } = await tariffStatus();
  return ok(
    meta
      ? { source: 'imported', rows: meta.rows, version: meta.currentVersion, imported_at: meta.importedAt, imported_by: meta.importedBy ?? null, classifier }
      : // The built-in rows are imported only to count them, when no table was imported (issue 46).
        { source: 'builtin', rows: (await import('#core/tariff/builtin')).builtinTariff.length, version: null, imported_at: null, imported_by: null, classifier },
  );
});

export const handler = byMethod({ PUT: replace, GET: show });
