/**
 * The webhook dashboard's words (issue 40): Spanish by default, English on request, the choice the
 * console keeps (the same sessionStorage key, so a tab that switched the console opens the dashboard
 * in the same language, and back). The page's static text carries `data-t` (its text) or
 * `data-t-label` (its aria-label) naming a message here; app.ts says the rest through `t`.
 */
export type Lang = 'es' | 'en';

export const langKey = 'despacho.console.lang';

export const messages = {
  title: ['Webhooks de Despacho', 'Despacho webhooks'],
  switchLang: ['English', 'Español'],
  switchLangLabel: ['Switch to English', 'Cambiar a español'],
  backToConsole: ['Volver a la consola', 'Back to the console'],
  signOut: ['Salir', 'Sign out'],
  signIn: ['Ingresar', 'Sign in'],
  apiToken: ['Token de la API', 'API token'],
  tokenHelp: ['El token queda solo en esta pestaña y se olvida al cerrarla.', 'Your token stays in this browser tab only and is forgotten when the tab closes.'],
  subscriptions: ['Suscripciones', 'Subscriptions'],
  refreshSubs: ['Actualizar suscripciones', 'Refresh subscriptions'],
  noSubs: ['Todavía no hay suscripciones. Agregá un destino abajo.', 'No subscriptions yet. Add an endpoint below.'],
  subsCaption: ['Suscripciones de webhooks de tu cuenta', 'Webhook subscriptions of your account'],
  endpoint: ['Destino', 'Endpoint'],
  events: ['Eventos', 'Events'],
  health: ['Salud', 'Health'],
  failures: ['Fallas', 'Failures'],
  lastDelivery: ['Última entrega', 'Last delivery'],
  active: ['Activa', 'Active'],
  actions: ['Acciones', 'Actions'],
  deliveries: ['Entregas', 'Deliveries'],
  refreshDeliveries: ['Actualizar entregas', 'Refresh deliveries'],
  closeDeliveries: ['Cerrar entregas', 'Close deliveries'],
  noDeliveries: ['Todavía no hay entregas.', 'No deliveries yet.'],
  deliveriesCaption: ['Registro de entregas, las más recientes primero', 'Delivery log, newest first'],
  event: ['Evento', 'Event'],
  state: ['Estado', 'State'],
  attempts: ['Intentos', 'Attempts'],
  lastResult: ['Último resultado', 'Last result'],
  nextAttempt: ['Próximo intento', 'Next attempt'],
  created: ['Creada', 'Created'],
  deliveryPages: ['Páginas de entregas', 'Delivery pages'],
  previousPage: ['Página anterior', 'Previous page'],
  nextPage: ['Página siguiente', 'Next page'],
  addEndpoint: ['Agregar destino', 'Add endpoint'],
  endpointUrl: ['URL del destino', 'Endpoint URL'],
  loadingEvents: ['Cargando eventos…', 'Loading events…'],
  unreachable: ['No se pudo conectar con el servicio.', 'The service could not be reached.'],
  tokenGone: ['Tu token ya no es aceptado. Ingresá de nuevo.', 'Your token is no longer accepted. Sign in again.'],
  wentWrong: ['Algo salió mal: {message}', 'Something went wrong: {message}'],
  tokenRefused: ['Este token no fue aceptado.', 'This token was not accepted.'],
  signedInAs: ['Sesión de {name}', 'Signed in as {name}'],
  signedInAsDone: ['Sesión de {name}.', 'Signed in as {name}.'],
  accountN: ['la cuenta {id}', 'account {id}'],
  signedOut: ['Sesión cerrada.', 'Signed out.'],
  subsFailed: ['No se pudieron cargar las suscripciones: {message}', 'Could not load the subscriptions: {message}'],
  sendTest: ['Enviar prueba', 'Send test'],
  reactivate: ['Reactivar', 'Reactivate'],
  delete: ['Borrar', 'Delete'],
  inARow: ['{n} seguidas', '{n} in a row'],
  failedInTotal: ['{n} fallidas en total', '{n} failed in total'],
  never: ['Nunca', 'Never'],
  yes: ['Sí', 'Yes'],
  no: ['No', 'No'],
  sendingTest: ['Enviando una entrega de prueba a {url}…', 'Sending a test delivery to {url}…'],
  testDelivered: ['entregada: HTTP {code} en {ms} ms.', 'delivered: HTTP {code} in {ms} ms.'],
  testFailed: ['falló: {error}{code}.', 'failed: {error}{code}.'],
  noAnswerLower: ['sin respuesta', 'no answer'],
  testNotSent: ['no se envió: {message}', 'not sent: {message}'],
  lastTest: ['Última prueba {note}', 'Last test {note}'],
  testOf: ['Prueba de {url} {note}', 'Test of {url} {note}'],
  reactivated: ['{url} reactivada. Reintentá sus entregas fallidas desde el registro de entregas.', 'Reactivated {url}. Retry its failed deliveries from the delivery log.'],
  reactivateFailed: ['No se pudo reactivar: {message}', 'Could not reactivate: {message}'],
  confirmDelete: ['¿Borrar la suscripción de {url}? No se le entregará nada más.', 'Delete the subscription for {url}? Nothing more will be delivered to it.'],
  deleteFailed: ['No se pudo borrar: {message}', 'Could not delete: {message}'],
  deleted: ['Se borró la suscripción de {url}.', 'Deleted the subscription for {url}.'],
  deliveriesFailed: ['No se pudieron cargar las entregas: {message}', 'Could not load the deliveries: {message}'],
  deliveriesTo: ['Entregas a {url}', 'Deliveries to {url}'],
  deliveriesPage: ['Página {page} de {pages} ({total} entregas)', 'Page {page} of {pages} ({total} deliveries)'],
  noAnswer: ['Sin respuesta', 'No answer'],
  notAttempted: ['Todavía sin intentos', 'Not attempted yet'],
  retry: ['Reintentar', 'Retry'],
  deliveryOf: ['entrega {id} de {event}', '{event} delivery {id}'],
  retrying: ['Reintentando la entrega {id}…', 'Retrying delivery {id}…'],
  retried: ['Entrega {id} ({event}): {result}', 'Delivery {id} ({event}): {result}'],
  deliveredDot: ['entregada.', 'delivered.'],
  retryRefused: ['Reintento rechazado: {message}', 'Retry refused: {message}'],
  eventsFailed: ['No se pudieron cargar los eventos: {message}', 'Could not load the events: {message}'],
  notAdded: ['No se agregó el destino. {detail}', 'The endpoint was not added. {detail}'],
  fixMarked: ['Corregí los campos marcados.', 'Fix the marked fields.'],
  notAddedBecause: ['No se agregó el destino: {message}', 'The endpoint was not added: {message}'],
  secretTitle: ['Destino agregado: su secreto de firma', 'Endpoint added: its signing secret'],
  secretOnce: ['Guardá este secreto ahora: se muestra una sola vez.', 'Store this secret now: it is shown only once.'],
  secretFor: ['Para {url}', 'For {url}'],
  signingSecret: ['Secreto de firma', 'Signing secret'],
  copySecret: ['Copiar secreto', 'Copy secret'],
  done: ['Listo', 'Done'],
  secretHidden: ['El secreto ya no se muestra.', 'The secret is no longer shown.'],
  added: ['Destino agregado. Copiá su secreto de firma ahora: se muestra una sola vez.', 'Endpoint added. Copy its signing secret now: it is shown only once.'],
  copied: ['Secreto copiado al portapapeles.', 'Secret copied to the clipboard.'],
  copyRefused: ['El navegador no permitió copiar: el secreto está seleccionado, apretá Ctrl+C (o ⌘C) para copiarlo.', 'The browser did not allow copying: the secret is selected, press Ctrl+C (or ⌘C) to copy it.'],
  enterToken: ['Escribí tu token de la API.', 'Enter your API token.'],
  health_healthy: ['sana', 'healthy'],
  health_degraded: ['degradada', 'degraded'],
  health_unhealthy: ['con fallas', 'unhealthy'],
  health_disabled: ['deshabilitada', 'disabled'],
  state_pending: ['pendiente', 'pending'],
  state_retrying: ['reintentando', 'retrying'],
  state_delivered: ['entregada', 'delivered'],
  state_failed: ['falló', 'failed'],
  type_document: ['Documentos', 'document'],
  type_delivery: ['Entregas', 'delivery'],
  type_manifest: ['Manifiestos', 'manifest'],
  type_order: ['Pedidos', 'order'],
  type_shipment: ['Envíos', 'shipment'],
  type_inventory: ['Inventario', 'inventory'],
} satisfies Record<string, [string, string]>;

export type MessageId = keyof typeof messages;

/** Each event's description (core/webhooks/events.ts, in English there) in Spanish. */
export const eventDescriptionsEs: Record<string, string> = {
  'order.created': 'Pedido nuevo recibido',
  'order.updated': 'Cambió el estado del pedido',
  'order.cancelled': 'Pedido cancelado',
  'shipment.created': 'Etiqueta generada, seguimiento disponible',
  'shipment.delivered': 'Paquete entregado',
  'inventory.low_stock': 'El stock bajó de un umbral',
  'manifest.processed': 'Manifiesto del courier completado: sus resultados están listos (una vez por procesamiento)',
  'manifest.processing_completed': 'Procesamiento terminado con éxito: qué corrida, qué abarcó, cuándo',
  'manifest.reviewed': 'Terminó la revisión del despachante (lote cerrado): los productos que cambió',
  'manifest.invalid_cuit_detected': 'CUIT/CUIL inválidos encontrados (cupo 0 o error de validación)',
  'manifest.total_due': 'Total a pagar calculado',
  'manifest.processing_failed': 'El procesamiento falló',
  'document.uploaded': 'Documento de transporte subido',
  'document.validated': 'Documento validado',
  'document.approved': 'Documento aprobado',
  'document.rejected': 'Documento rechazado',
  'document.superseded': 'Documento reemplazado por una versión nueva',
  'document.downloaded': 'Documento descargado',
  'delivery.recorded': 'Constancia de entrega registrada',
};

export const isMessage = (id: string): id is MessageId => id in messages;

/** The message in `lang`, `{name}` replaced by `params.name`. */
export function tr(lang: Lang, id: MessageId, params: Record<string, string | number> = {}): string {
  return messages[id][lang === 'es' ? 0 : 1].replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? ''));
}

/** Why a subscription was disabled (services/webhooks, infra/entities/webhooks.ts) in `lang`; an unknown text as given. */
export function disabledReasonIn(lang: Lang, reason: string): string {
  if (lang === 'en') return reason;
  if (reason === 'Disabled at once: the endpoint answered 410 Gone.') return 'Deshabilitada de inmediato: el destino respondió 410 Gone.';
  return reason.replace(/^Disabled after (\d+) consecutive failed deliveries\.$/, 'Deshabilitada tras $1 entregas fallidas seguidas.');
}

/** A value the API names (a health, a delivery state, an event type) in `lang`; an unknown one as given. */
export function named(lang: Lang, prefix: 'health' | 'state' | 'type', value: string): string {
  const id = `${prefix}_${value}`;
  return isMessage(id) ? tr(lang, id) : value;
}
