import { signal } from '@preact/signals';

/** The console speaks Spanish by default (the broker's staff are in Argentina); English on request, kept for the tab. */
export type Lang = 'es' | 'en';

const stored = sessionStorage.getItem('despacho.console.lang');
export const lang = signal<Lang>(stored === 'en' ? 'en' : 'es');

export function setLang(l: Lang): void {
  lang.value = l;
  sessionStorage.setItem('despacho.console.lang', l);
  document.documentElement.lang = l;
}
document.documentElement.lang = lang.value;

const messages = {
  appName: ['Consola Despacho', 'Despacho console'],
  skip: ['Saltar al contenido', 'Skip to content'],
  mainNav: ['Secciones', 'Sections'],
  documents: ['Documentos', 'Documents'],
  manifests: ['Manifiestos', 'Manifests'],
  review: ['Revisión', 'Review'],
  quota: ['Cupo', 'Quota'],
  webhooks: ['Webhooks', 'Webhooks'],
  signIn: ['Ingresar', 'Sign in'],
  signOut: ['Salir', 'Sign out'],
  token: ['Token', 'Token'],
  tokenHelp: ['El token queda solo en esta pestaña y se olvida al cerrarla.', 'Your token stays in this tab only and is forgotten when it closes.'],
  tokenRefused: ['Este token no fue aceptado.', 'This token was not accepted.'],
  tokenEmpty: ['Pegá un token.', 'Paste a token.'],
  signedInAs: ['Sesión de {name} ({role})', 'Signed in as {name} ({role})'],
  switchLang: ['English', 'Español'],
  switchLangLabel: ['Switch to English', 'Cambiar a español'],
  loading: ['Cargando…', 'Loading…'],
  nothing: ['Nada para mostrar.', 'Nothing to show.'],
  refresh: ['Actualizar', 'Refresh'],
  previous: ['Anterior', 'Previous'],
  next: ['Siguiente', 'Next'],
  pageOf: ['Página {page} de {pages}', 'Page {page} of {pages}'],
  pageN: ['Página {page}', 'Page {page}'],
  filter: ['Filtrar', 'Filter'],
  any: ['Todos', 'Any'],
  open: ['Abrir', 'Open'],
  close: ['Cerrar', 'Close'],
  cancel: ['Cancelar', 'Cancel'],
  error: ['Error: {message}', 'Error: {message}'],
  notAllowed: ['Tu token no permite esta acción.', 'Your token does not allow this.'],
  // documents
  docsTitle: ['Documentos de transporte', 'Transport documents'],
  docsCaption: ['Documentos, más recientes primero', 'Documents, newest first'],
  state: ['Estado', 'State'],
  type: ['Tipo', 'Type'],
  manifestId: ['Manifiesto', 'Manifest'],
  awb: ['AWB', 'AWB'],
  file: ['Archivo', 'File'],
  version: ['Versión', 'Version'],
  created: ['Creado', 'Created'],
  actions: ['Acciones', 'Actions'],
  details: ['Detalle', 'Details'],
  preview: ['Vista previa', 'Preview'],
  previewOf: ['Vista previa de {name}', 'Preview of {name}'],
  noPreview: ['Sin vista previa para este tipo de archivo.', 'No preview for this kind of file.'],
  openFile: ['Abrir el archivo', 'Open the file'],
  validate: ['Validar', 'Validate'],
  approve: ['Aprobar', 'Approve'],
  reject: ['Rechazar', 'Reject'],
  notes: ['Notas', 'Notes'],
  reason: ['Motivo', 'Reason'],
  reasonNeeded: ['Escribí el motivo.', 'Write the reason.'],
  history: ['Historial y versiones', 'History and versions'],
  supersededBy: ['Reemplazado por el documento {id}', 'Superseded by document {id}'],
  uploader: ['Subido por', 'Uploaded by'],
  done: ['Hecho: {what}', 'Done: {what}'],
  state_uploaded: ['Subido', 'Uploaded'],
  state_validated: ['Validado', 'Validated'],
  state_approved: ['Aprobado', 'Approved'],
  state_rejected: ['Rechazado', 'Rejected'],
  state_superseded: ['Reemplazado', 'Superseded'],
  type_awb: ['Guía aérea', 'Air waybill'],
  type_manifest: ['Manifiesto', 'Manifest'],
  type_customs: ['Aduana', 'Customs'],
  type_delivery: ['Entrega', 'Delivery'],
  type_other: ['Otro', 'Other'],
  status_pending: ['pendiente', 'pending'],
  status_processing: ['procesando', 'processing'],
  status_completed: ['completado', 'completed'],
  status_failed: ['falló', 'failed'],
  health_healthy: ['sana', 'healthy'],
  health_degraded: ['degradada', 'degraded'],
  health_unhealthy: ['con fallas', 'unhealthy'],
  health_disabled: ['deshabilitada', 'disabled'],
  did_validate: ['Documento {id} validado.', 'Document {id} validated.'],
  did_approve: ['Documento {id} aprobado.', 'Document {id} approved.'],
  did_reject: ['Documento {id} rechazado.', 'Document {id} rejected.'],
  didClose: ['Lote {batch} cerrado: toda escritura se rechaza (423) hasta reabrirlo.', 'Batch {batch} closed: every write is refused (423) until it is reopened.'],
  didReopen: ['Lote {batch} reabierto.', 'Batch {batch} reopened.'],
  // manifests
  manifestsTitle: ['Manifiestos', 'Manifests'],
  manifestsCaption: ['Lotes de manifiestos, más recientes primero', 'Manifest batches, newest first'],
  openBatch: ['Abrir un lote por su id', 'Open a batch by its id'],
  batchId: ['Id de lote', 'Batch id'],
  status: ['Estado', 'Status'],
  progress: ['Progreso', 'Progress'],
  products: ['Productos', 'Products'],
  amountToPay: ['A pagar', 'Amount to pay'],
  closed: ['Cerrado', 'Closed'],
  pipeline: ['Procesamiento', 'Processing'],
  stage_classification: ['Clasificación', 'Classification'],
  stage_webservices: ['Servicios web (CUIT y cupo)', 'Web services (tax id and quota)'],
  stage_ai: ['Posición arancelaria', 'Tariff code'],
  stage_calculations: ['Cálculos y canal', 'Calculations and channel'],
  summary: ['Resumen', 'Summary'],
  personal: ['Personales', 'Personal'],
  commercial: ['Comerciales', 'Commercial'],
  prohibited: ['Prohibidos', 'Prohibited'],
  channels: ['Canales en esta página de revisión', 'Channels'],
  closeBatch: ['Cerrar el lote', 'Close the batch'],
  reopenBatch: ['Reabrir el lote', 'Reopen the batch'],
  downloads: ['Descargas', 'Downloads'],
  download: ['Descargar {format}', 'Download {format}'],
  decisionLog: ['Decisiones por ítem (modo actualización)', 'Item decisions (update mode)'],
  decision: ['Decisión', 'Decision'],
  item: ['Ítem', 'Item'],
  reviewDecisions: ['Decisiones del despachante', "Broker's decisions"],
  goReview: ['Revisar este lote', 'Review this batch'],
  // review
  reviewTitle: ['Revisión de productos', 'Product review'],
  reviewIntro: ['Productos en canal A o RO, o con clasificación bajo el umbral de {threshold}.', 'Products in channel A or RO, or classified below the threshold of {threshold}.'],
  reviewCaption: ['Productos para revisar', 'Products to review'],
  description: ['Descripción', 'Description'],
  declared: ['Código declarado', 'Declared code'],
  ncm: ['NCM', 'NCM'],
  confidence: ['Confianza', 'Confidence'],
  channel: ['Canal', 'Channel'],
  duty: ['Derechos', 'Duty'],
  reasons: ['Motivos', 'Reasons'],
  candidates: ['Candidatos', 'Candidates'],
  correct: ['Confirmar o corregir NCM', 'Confirm or correct NCM'],
  correctFor: ['Confirmar o corregir NCM: {awb}', 'Confirm or correct NCM: {awb}'],
  newNcm: ['NCM decidido', 'Decided NCM'],
  save: ['Guardar decisión', 'Save decision'],
  corrected: ['NCM de {awb}: {ncm}. Derechos {before} → {after}, canal {channel}.', 'NCM of {awb}: {ncm}. Duty {before} → {after}, channel {channel}.'],
  cause_channel_a: ['canal A', 'channel A'],
  cause_channel_ro: ['canal RO', 'channel RO'],
  cause_low_confidence: ['baja confianza', 'low confidence'],
  evidence: ['Evidencia', 'Evidence'],
  dutyRate: ['arancel {rate}%', 'duty rate {rate}%'],
  'rule_prohibited': ['Mercadería prohibida (régimen X): nunca se libera, verificación física.', 'Prohibited goods (regime X) are never cleared: physical inspection.'],
  'rule_over-courier-limit': ['FOB del envío mayor a USD 3.000, el límite del régimen courier (Decreto 1065/2024): verificación física.', 'Shipment FOB above USD 3,000, the courier regime limit (Decreto 1065/2024): physical inspection.'],
  'rule_high-value': ['CIF del envío mayor a USD 2.500: verificación física.', 'Shipment CIF above USD 2,500: physical inspection.'],
  'rule_random-sample': ['Muestra aleatoria determinística del 2% de las guías (por un hash de la guía): verificación física.', 'Deterministic random sample of 2% of AWBs (by a hash of the AWB): physical inspection.'],
  'rule_invalid-tax-id': ['CUIT, CUIL o DNI del destinatario ausente o inválido: revisión documental.', "The consignee's tax id (CUIT, CUIL or DNI) is missing or invalid: document review."],
  'rule_low-confidence': ['Confianza de la clasificación arancelaria menor a {threshold} (la calibración del clasificador): revisión documental del NCM.', "Tariff classification confidence below {threshold} (the classifier's calibration): document review of the NCM code."],
  'rule_mid-value': ['CIF del envío mayor a USD 1.000: revisión documental.', 'Shipment CIF above USD 1,000: document review.'],
  'rule_default': ['Ninguna regla de riesgo aplica: liberación automática.', 'No risk rule applies: automatic clearance.'],
  reviewed: ['decidido por {by}', 'decided by {by}'],
  noneToReview: ['No hay productos para revisar en este lote.', 'No products to review in this batch.'],
  chooseBatch: ['Elegí un lote en Manifiestos, o escribí su id.', 'Choose a batch in Manifests, or type its id.'],
  // quota
  quotaTitle: ['Cupo de envíos personales', 'Personal shipment quota'],
  taxId: ['CUIT, CUIL o DNI', 'CUIT, CUIL or DNI'],
  year: ['Año', 'Year'],
  search: ['Buscar', 'Search'],
  quotaUsed: ['{used} de {limit} envíos personales usados en {year}; quedan {remaining}.', '{used} of {limit} personal shipments used in {year}; {remaining} left.'],
  quotaOthers: ['{n} envíos de otras cuentas no se muestran.', '{n} shipments of other accounts are not shown.'],
  quotaCaption: ['Envíos que usaron el cupo y sus lotes', 'Shipments that used the quota and their batches'],
  batches: ['Lotes', 'Batches'],
  account: ['Cuenta', 'Account'],
  // webhooks
  webhooksTitle: ['Webhooks', 'Webhooks'],
  webhooksIntro: ['Las suscripciones de tu cuenta. Se administran en el panel de webhooks.', "Your account's subscriptions. They are managed on the webhook dashboard."],
  openDashboard: ['Abrir el panel de webhooks', 'Open the webhook dashboard'],
  endpoint: ['Destino', 'Endpoint'],
  events: ['Eventos', 'Events'],
  health: ['Salud', 'Health'],
  active: ['Activa', 'Active'],
  lastDelivery: ['Última entrega', 'Last delivery'],
  yes: ['sí', 'yes'],
  no: ['no', 'no'],
  subsCaption: ['Suscripciones de webhooks', 'Webhook subscriptions'],
  // search (issue 40)
  searchLabel: ['Buscar guía, AWB, CUIT, destinatario, documento o producto', 'Search a guía, AWB, tax id, consignee, document or product'],
  searchPlaceholder: ['Guía, AWB, CUIT, nombre, producto…', 'Guía, AWB, tax id, name, product…'],
  searchTitle: ['Búsqueda', 'Search'],
  searchFor: ['Resultados para «{q}»', 'Results for “{q}”'],
  searchNone: ['Nada encontrado para «{q}».', 'Nothing found for “{q}”.'],
  searchEmpty: ['Escribí qué buscar en el campo de arriba.', 'Type what to look for in the field above.'],
  searchMore: ['Hay más resultados de este tipo: escribí más para acotar.', 'There are more results of this kind: type more to narrow it.'],
  searchFound: ['{n} resultados', '{n} results'],
  group_batches: ['Lotes (guía o manifiesto)', 'Batches (guía or manifest)'],
  group_awbs: ['AWB', 'AWBs'],
  group_tax_ids: ['CUIT, CUIL o DNI', 'Tax ids (CUIT, CUIL, DNI)'],
  group_consignees: ['Destinatarios', 'Consignees'],
  group_products: ['Productos', 'Products'],
  group_documents: ['Documentos', 'Documents'],
  courier: ['Courier', 'Courier'],
} satisfies Record<string, [string, string]>;

export type MessageId = keyof typeof messages;

/** The message in the current language, `{name}` replaced by `params.name`. */
/**
 * A channel rule's reason (`<rule id>: <its English description>`, core/customs/channel-rules.ts) in
 * the console's language; any other reason as the API wrote it.
 */
export function ruleReason(reason: string, threshold: number): string {
  const id = /^([a-z-]+): /.exec(reason)?.[1];
  const key = `rule_${id}`;
  return id && key in messages ? t(key as MessageId, { threshold }) : reason;
}

export function t(id: MessageId, params: Record<string, string | number> = {}): string {
  const text = messages[id][lang.value === 'es' ? 0 : 1];
  return text.replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? ''));
}

const moneyFormat = { es: new Intl.NumberFormat('es-AR', { style: 'currency', currency: 'USD' }), en: new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }) };
export const money = (n: number | null | undefined) => (n === null || n === undefined ? '—' : moneyFormat[lang.value].format(n));
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(lang.value === 'es' ? 'es-AR' : 'en-US', { dateStyle: 'short', timeStyle: 'short' }) : '—');
