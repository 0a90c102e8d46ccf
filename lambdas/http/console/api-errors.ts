/**
 * The API's errors in Spanish (issue 40), for the console and the webhook dashboard. The API answers `{ error: <code>, message, errors: { field:
 * [messages] } }` in English, the language of its contract; the console shows the code's Spanish
 * sentence, and each field's message in Spanish when its text is known, else a Spanish sentence
 * naming the field. No DOM here: test/unit/console checks that every code the API can answer has
 * its sentence.
 */

/** Every error code of the API (core/errors.ts and the codes services set), in Spanish. */
export const errorCodesEs: Record<string, string> = {
  bad_request: 'La solicitud está mal formada.',
  unauthorized: 'Hace falta un token válido.',
  token_expired: 'El token venció; pedí uno nuevo.',
  token_revoked: 'El token fue revocado; pedí uno nuevo.',
  forbidden: 'Tu token no permite esta acción.',
  not_found: 'No existe, o tu cuenta no lo ve.',
  method_not_allowed: 'Método no permitido.',
  conflict: 'La solicitud choca con el estado actual: actualizá la pantalla y volvé a intentar.',
  gone: 'Esto ya no existe.',
  payload_too_large: 'El cuerpo de la solicitud es demasiado grande.',
  unsupported_media_type: 'Tipo de contenido no admitido.',
  validation_failed: 'Los datos enviados no son válidos.',
  unprocessable: 'La solicitud no puede procesarse.',
  locked: 'El lote está cerrado: reabrilo para cambiarlo.',
  manifest_closed: 'El lote está cerrado: reabrilo para cambiarlo.',
  rate_limited: 'Demasiadas solicitudes; esperá un momento.',
  unavailable: 'El servicio está ocupado; reintentá en unos segundos.',
  bad_gateway: 'Un servicio externo falló.',
  gateway_timeout: 'Un servicio externo no respondió a tiempo.',
  internal_error: 'Error interno del servidor.',
  processing_incomplete: 'El lote todavía se está procesando; las descargas están al 100%.',
  unknown_batch: 'Ese lote no es de tu cuenta.',
  chunked_upload_failed: 'La carga en partes falló: empezala de nuevo con otra clave.',
  chunked_upload_expired: 'La carga en partes venció con partes faltantes: empezala de nuevo con otra clave.',
};

/** The fields the console sends, by their Spanish label. */
export const fieldLabelsEs: Record<string, string> = {
  ncm_code: 'NCM',
  reason: 'Motivo',
  notes: 'Notas',
  item_key: 'Ítem',
  ids: 'Documentos',
  action: 'Acción',
  cursor: 'Página',
  per_page: 'Filas por página',
  page: 'Página',
  q: 'Búsqueda',
  state: 'Estado',
  document_type: 'Tipo',
  manifest_id: 'Manifiesto',
  awb_number: 'AWB',
  status: 'Estado',
  since: 'Desde',
  year: 'Año',
  tax_id: 'CUIT, CUIL o DNI',
  format: 'Formato',
  lang: 'Idioma',
  endpoint_url: 'URL del destino',
  events: 'Eventos',
  active: 'Activa',
};

/** Field messages the API writes (http/*\/schemas.ts, services), in Spanish: exact texts, then shapes. */
const exactEs: Record<string, string> = {
  'Must be a string.': 'Debe ser un texto.',
  'Must not be empty.': 'No puede estar vacío.',
  'Must not contain control characters.': 'No puede contener caracteres de control.',
  'Must be a whole number.': 'Debe ser un número entero.',
  'Must be a number.': 'Debe ser un número.',
  'Must be at least 1.': 'Debe ser al menos 1.',
  'Is too large.': 'Es demasiado grande.',
  'Must be an 8-digit NCM, e.g. 6109.10.00 or 61091000.': 'Debe ser un NCM de 8 dígitos, por ejemplo 6109.10.00 o 61091000.',
  'Must be a cursor the previous call answered.': 'Debe ser una página que la consulta anterior devolvió.',
  'Is not a cursor this list answered; leave it out to start from the first page.': 'No es una página de esta lista; dejala vacía para empezar por la primera.',
  'Must name each document once.': 'Cada documento debe nombrarse una sola vez.',
  'Must name at least one document.': 'Elegí al menos un documento.',
  'Must name at most 100 documents; send the rest in another request.': 'Elegí a lo sumo 100 documentos; mandá el resto en otra solicitud.',
  'Must be document ids.': 'Deben ser números de documento.',
  'Must not be empty: type a guía, manifest, AWB, tax id, name, document or product words.': 'Escribí una guía, un manifiesto, un AWB, un CUIT, un nombre, un documento o palabras de un producto.',
  'Must be a date (2026-11-01) or an ISO 8601 UTC timestamp.': 'Debe ser una fecha (2026-11-01) o un instante ISO 8601 en UTC.',
  'Name at least one event.': 'Elegí al menos un evento.',
  'Too many events.': 'Demasiados eventos.',
  'Unknown event: see GET /api/webhook-subscriptions/available-events.': 'Evento desconocido: ver GET /api/webhook-subscriptions/available-events.',
  'The endpoint is a private or reserved address.': 'El destino es una dirección privada o reservada.',
};
const shapesEs: [RegExp, string][] = [
  [/^Must be at most (\d+) characters\.$/, 'Debe tener a lo sumo $1 caracteres.'],
  [/^Must be one of (.*)\.$/, 'Debe ser uno de: $1.'],
  [/^(\S+) is not a row of the tariff table in force\.$/, '$1 no es una fila del arancel vigente.'],
  [/^AWB (\S+) has no product (\S+); its products: (.*)\.$/, 'La guía $1 no tiene el producto $2; sus productos: $3.'],
  [/^AWB (\S+) has (\d+) products; name one: (.*)\.$/, 'La guía $1 tiene $2 productos; elegí uno: $3.'],
];

export const fieldLabel = (field: string) => fieldLabelsEs[field] ?? field;

/** A field's message in Spanish: its known text, else a sentence naming the field. */
export function fieldMessageEs(field: string, message: string): string {
  const exact = exactEs[message];
  if (exact) return exact;
  for (const [pattern, es] of shapesEs) if (pattern.test(message)) return message.replace(pattern, es);
  return `El campo «${fieldLabel(field)}» no es válido.`;
}

/** The error's sentence in Spanish: its code's (a 403 for a scope names it), else by its HTTP status (0: the network). */
export function errorMessageEs(code: string | undefined, status: number, message?: string): string {
  const scope = code === 'forbidden' ? /needs the (.+) scope\.$/.exec(message ?? '')?.[1] : undefined;
  if (scope) return `Tu token no tiene el permiso ${scope.replace(/ or /g, ' ni ')} que pide esta acción.`;
  if (code && errorCodesEs[code]) return errorCodesEs[code];
  if (status === 0) return 'No se pudo conectar con el servidor.';
  return `La solicitud falló (HTTP ${status}).`;
}

/** Field errors in Spanish. */
export function fieldErrorsEs(errors: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(errors)) out[field] = messages.map((m) => fieldMessageEs(field, m));
  return out;
}
