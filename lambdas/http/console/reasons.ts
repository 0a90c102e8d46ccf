/**
 * The API's reasons in Spanish (issue 40): the channel rules' (`<rule id>: <description> (<detail>)`,
 * core/customs/channel.ts), the regime's (core/customs/regime.ts), the classifier's evidence
 * (core/tariff) and the candidates' (core/manifests/views.ts), and the update-mode decision log's
 * (core/manifests/identity.ts). The API answers them in English, the language of its contract; the
 * console reads each shape back and says it in Spanish. A text of no known shape is shown as the API
 * wrote it. No DOM here: test/unit/console reads these tables against what core writes.
 */

/** Each channel rule (core/customs/channel-rules.ts, by id) in Spanish; `{threshold}`, the review threshold. */
export const channelRulesEs: Record<string, string> = {
  prohibited: 'Mercadería prohibida (régimen X): nunca se libera, verificación física.',
  'over-courier-limit': 'FOB del envío mayor a USD 3.000, el límite del régimen courier (Decreto 1065/2024): verificación física.',
  'high-value': 'CIF del envío mayor a USD 2.500: verificación física.',
  'random-sample': 'Muestra aleatoria determinística del 2% de las guías (por un hash de la guía): verificación física.',
  'invalid-tax-id': 'CUIT, CUIL o DNI del destinatario ausente o inválido: revisión documental.',
  'low-confidence': 'Confianza de la clasificación arancelaria menor a {threshold} (la calibración del clasificador): revisión documental del NCM.',
  'mid-value': 'CIF del envío mayor a USD 1.000: revisión documental.',
  default: 'Ninguna regla de riesgo aplica: liberación automática.',
};

/** The update-mode decisions (spec 3.5) and their reasons, as core/manifests/identity.ts writes them. */
export const itemDecisionsEs: Record<string, string> = { CREATE: 'ALTA', UPDATE: 'ACTUALIZACIÓN', SKIP: 'SIN CAMBIOS', REJECT: 'RECHAZO' };
export const itemDecisionReasonsEs: Record<string, string> = {
  'missing idempotency key': 'falta la clave de idempotencia',
  'duplicate idempotency key in payload': 'clave de idempotencia repetida en el envío',
  'missing AWB': 'falta la guía (AWB)',
  'AWB belongs to another team': 'la guía (AWB) es de otra cuenta',
  'no existing record in the batch': 'no había un registro en el lote',
  'payload unchanged': 'sin cambios en los datos',
  'payload changed': 'los datos cambiaron',
};

type Shape = { id: string; pattern: RegExp; es: (m: string[]) => string };

const units = (s: string) =>
  s
    .split('; ')
    .map((u) => u.replace(/^(\d+) units of HS (.+)$/, '$1 unidades de la partida SA $2').replace(/^(\d+) units of "(.*)"$/, '$1 unidades de «$2»'))
    .join('; ');
const detail = (d: string | undefined) =>
  d === undefined
    ? ''
    : ` (${d
        .replace(/^shipment FOB /, 'FOB del envío USD ')
        .replace(/^shipment CIF /, 'CIF del envío USD ')
        .replace(/^AWB bucket (\d+) of 10000$/, 'la guía cae en el balde $1 de 10000')
        .replace(/^regime X$/, 'régimen X')
        .replace(/^tax id invalid$/, 'CUIT, CUIL o DNI inválido')
        .replace(/^confidence /, 'confianza ')})`;
const fieldEs: Record<string, string> = { description: 'la descripción', name: 'el nombre', tariff_code: 'el código arancelario', hsCode: 'el código declarado' };
const sameEs: Record<string, string> = { 'product link': 'el mismo enlace de producto', description: 'la misma descripción', product: 'el mismo producto' };
const cannot = (src: string) => `no puede despacharse por el régimen courier (${src})`;

/** Regime, channel, candidate and decision reasons: one whole text each. */
const reasonShapes: Shape[] = [
  { id: 'channel-rule', pattern: /^([a-z-]+): .*?(?: \(([^()]*)\))?$/, es: (m) => (channelRulesEs[m[1]] ? channelRulesEs[m[1]] + detail(m[2]) : '') },
  { id: 'no-channel-rule', pattern: /^no channel rule matched: automatic clearance$/, es: () => 'Ninguna regla de canal aplica: liberación automática.' },
  { id: 'no-products', pattern: /^no products: automatic clearance$/, es: () => 'Sin productos: liberación automática.' },
  {
    id: 'prohibited',
    pattern: /^prohibited goods: (.*) \((?:tariff code starts with (\S+)|(\w+) matches "(.*)")\)$/,
    es: (m) => `mercadería prohibida: ${m[1]} (${m[2] ? `el código arancelario empieza con ${m[2]}` : `${fieldEs[m[3]] ?? m[3]} coincide con «${m[4]}»`})`,
  },
  { id: 'over-fob', pattern: /^shipment FOB (.*) is over the courier limit of (.*) per shipment: cannot clear under the courier regime \((.*)\)$/, es: (m) => `el FOB del envío, ${m[1]}, supera el límite courier de ${m[2]} por envío: ${cannot(m[3])}` },
  { id: 'over-weight', pattern: /^shipment weight (.*) is over the courier limit of (.*) per shipment: cannot clear under the courier regime \((.*)\)$/, es: (m) => `el peso del envío, ${m[1]}, supera el límite courier de ${m[2]} por envío: ${cannot(m[3])}` },
  {
    id: 'over-package',
    pattern: /^a package of line (.*) weighs (.*), over the courier limit of (.*) per package: cannot clear under the courier regime \((.*)\)$/,
    es: (m) => `un bulto de la línea ${m[1]} pesa ${m[2]}, más que el límite courier de ${m[3]} por bulto: ${cannot(m[4])}`,
  },
  { id: 'company', pattern: /^consignee is a company \((.*)\)$/, es: (m) => `el destinatario es una empresa (${m[1]})` },
  { id: 'international', pattern: /^consignee's tax id is for international purposes \((.*)\), not a resident person$/, es: (m) => `la clave fiscal del destinatario es para fines internacionales (${m[1]}), no de una persona residente` },
  { id: 'units', pattern: /^more than (\d+) units of the same kind \((.*)\): not a personal shipment$/, es: (m) => `más de ${m[1]} unidades de una misma especie (${units(m[2])}): no es un envío personal` },
  { id: 'person', pattern: /^personal: the consignee is a person \((.*)\)$/, es: (m) => `personal: el destinatario es una persona (${m[1]})` },
  {
    id: 'person-unknown',
    pattern: /^personal: the consignee's kind is not known from the tax id \((.*)\); the tax-id check decides$/,
    es: (m) => `personal: la clave fiscal no dice qué es el destinatario (${m[1] === 'no tax id' ? 'sin clave fiscal' : m[1]}); decide la verificación del CUIT/CUIL`,
  },
  { id: 'within-limits', pattern: /^within the courier limits: FOB (.*) of (.*), at most (\d+) units of a kind \((.*)\)$/, es: (m) => `dentro de los límites courier: FOB ${m[1]} de ${m[2]}, a lo sumo ${m[3]} unidades de una especie (${m[4]})` },
  { id: 'candidate-declared', pattern: /^tariff code (\S+) as declared, kept for review \(confidence ([\d.]+)\): (.*)$/s, es: (m) => `NCM ${m[1]} como se declaró, a revisar (confianza ${m[2]}): ${evidenceEs(m[3])}` },
  {
    id: 'candidate-suggested',
    pattern: /^tariff code (\S+) as the classifier suggests \(([\w-]+), confidence ([\d.]+)\), for review: (.*)$/s,
    es: (m) => `NCM ${m[1]} que sugiere el clasificador (${m[2]}, confianza ${m[3]}), a revisar: ${evidenceEs(m[4])}`,
  },
];

/** The classifier's evidence, sentence by sentence (a reason may carry a partner-code note after its own). */
const evidenceShapes: Shape[] = [
  { id: 'matched', pattern: /^Matched (.*) \(score ([\d.]+)(?:; next (\S+) at ([\d.]+))?\)\.$/, es: (m) => `Coincidieron ${m[1]} (puntaje ${m[2]}${m[3] ? `; le sigue ${m[3]} con ${m[4]}` : ''}).` },
  { id: 'no-row', pattern: /^No tariff row matches the description; fallback (\S+), to be reviewed\.$/, es: (m) => `Ninguna fila del arancel coincide con la descripción; se usa ${m[1]} por defecto, a revisar.` },
  { id: 'partner-exact', pattern: /^Partner hsCode (\S+) is NCM (\S+) of the tariff table\.$/, es: (m) => `El código declarado ${m[1]} es el NCM ${m[2]} del arancel.` },
  {
    id: 'partner-hs6',
    pattern: /^Partner hsCode (\S+) kept at HS (\S+); (\S+) is (the only NCM|the best NCM for the description|the first NCM) under it\.$/,
    es: (m) => `Se mantiene la subpartida SA ${m[2]} del código declarado ${m[1]}; ${m[3]} es ${{ 'the only NCM': 'el único NCM', 'the best NCM for the description': 'el NCM que mejor responde a la descripción', 'the first NCM': 'el primer NCM' }[m[4]]} bajo ella.`,
  },
  { id: 'partner-short', pattern: /^Partner hsCode '(.*)' is not an HS code \(fewer than 6 digits\); classified from the description\.$/, es: (m) => `El código declarado «${m[1]}» no es un código SA (menos de 6 dígitos); se clasificó por la descripción.` },
  { id: 'partner-absent', pattern: /^Partner hsCode (\S+) has no row in the tariff table \(nothing under HS (\S+)\); classified from the description\.$/, es: (m) => `El código declarado ${m[1]} no tiene fila en el arancel (nada bajo la subpartida SA ${m[2]}); se clasificó por la descripción.` },
  {
    id: 'hs-fallback',
    pattern: /^HS fallback: matched (.*) in HS (\S+) \((.*)\); (?:NCM (\S+) of the tariff table under it|the tariff table has no NCM under it: duty estimated at ([\d.]+)%, to be confirmed in document review)\.$/s,
    es: (m) =>
      `Nomenclatura SA: coincidieron ${m[1]} en la subpartida ${m[2]} (${m[3]}); ${m[4] ? `el NCM ${m[4]} del arancel está bajo ella` : `el arancel no tiene NCM bajo ella: derechos estimados en ${m[5]}%, a confirmar en la revisión documental`}.`,
  },
  {
    id: 'partner-kept-hs',
    pattern: /^Partner hsCode (\S+) kept as NCM (\S+): HS (\S+) \((.*)\) is a subheading of the HS nomenclature, the tariff table has no row for it: duty estimated at ([\d.]+)%(?:; the description matches the same subheading, to be confirmed in document review\.|\.(?: The classifier suggests (\S+) instead \(([\w-]+), confidence ([\d.]+)\), an answer that is always reviewed and never replaces a valid declared NCM: both to be confirmed in document review\.)?)$/s,
    es: (m) =>
      `Se mantiene el código declarado ${m[1]} como NCM ${m[2]}: la subpartida SA ${m[3]} (${m[4]}) existe en la nomenclatura y el arancel no tiene fila para ella: derechos estimados en ${m[5]}%` +
      (m[6]
        ? `. El clasificador sugiere ${m[6]} en su lugar (${m[7]}, confianza ${m[8]}), una respuesta que siempre se revisa y nunca reemplaza un NCM declarado válido: ambos a confirmar en la revisión documental.`
        : m[0].includes('the description matches')
          ? '; la descripción coincide con la misma subpartida, a confirmar en la revisión documental.'
          : '.'),
  },
  {
    id: 'broker-memory',
    pattern: /^A broker decided (\S+) for the same (product link|description|product) on (\S+)(?: \((.*?)\))?(?:: (.*))? \(partner-code memory\)\.$/,
    es: (m) =>
      `Un despachante decidió ${m[1]} para ${sameEs[m[2]]} el ${m[3]}${m[4] ? ` (${m[4]})` : ''}${m[5] ? `: ${m[5].replace(/\bbatch /, 'lote ').replace(/\brevision /, 'revisión ')}` : ''} (memoria de códigos).`,
  },
  { id: 'decided-by', pattern: /^Decided by (.*) on (\S+) \(revision (\d+)\): (.*)$/s, es: (m) => `Decidido por ${m[1]} el ${m[2]} (revisión ${m[3]}): ${m[4]}` },
];

const firstMatch = (shapes: Shape[], text: string): string | null => {
  for (const s of shapes) {
    const m = s.pattern.exec(text);
    if (!m) continue;
    const out = s.es([...m].map((x) => x ?? undefined) as string[]);
    if (out) return out;
  }
  return null;
};

/** Sentence starts the evidence joins (a partner-code note follows the classifier's own sentence). */
const evidenceStarts = /(?<=\.) (?=Partner hsCode|HS \d{4}\.\d{2} has no row|NCM \S+ \(declared\) has no row)/;

/** The classifier's evidence in Spanish; null when a sentence of it has no known shape. */
export function evidenceEs(text: string): string {
  return evidenceOrNull(text) ?? text;
}

function evidenceOrNull(text: string): string | null {
  const whole = firstMatch(evidenceShapes, text);
  if (whole) return whole;
  const parts = text.split(evidenceStarts);
  if (parts.length < 2) return null;
  const out = parts.map((p) => firstMatch(evidenceShapes, p) ?? noteEs(p));
  return out.every((x) => x !== null) ? out.join(' ') : null;
}

/** The notes the classifier appends (the HS tier's estimate, a declared code not used). */
function noteEs(text: string): string | null {
  const m = /^(?:HS (\S+)|NCM (\S+) \(declared\)) has no row in the tariff table: ([\d.]+)% is (.*), an upper estimate until a broker confirms the NCM\.?$/.exec(text);
  if (!m) return null;
  const basis = m[4]
    .replace(/^the highest rate of the table's rows in chapter (\d+)$/, 'la tasa más alta de las filas del arancel en el capítulo $1')
    .replace(/^the common external tariff's ceiling \(the table has no row in chapter (\d+)\)$/, 'el techo del arancel externo común (el arancel no tiene filas en el capítulo $1)');
  return `${m[1] ? `La subpartida SA ${m[1]}` : `El NCM ${m[2]} (declarado)`} no tiene fila en el arancel: ${m[3]}% es ${basis}, una estimación máxima hasta que un despachante confirme el NCM.`;
}

/** A reason in Spanish, or null when its shape is not known (the caller then shows the API's text). */
export function reasonEsOrNull(text: string, threshold: number): string | null {
  const out = firstMatch(reasonShapes, text) ?? evidenceOrNull(text);
  return out === null ? null : out.replace('{threshold}', String(threshold));
}

/** A reason (or evidence) in the console's language: the API's text in English, its Spanish otherwise. */
export function reasonIn(lang: 'es' | 'en', text: string, threshold: number): string {
  return lang === 'en' ? text : (reasonEsOrNull(text, threshold) ?? text);
}

/** An update-mode decision and its reason in the console's language. */
export function itemDecisionIn(lang: 'es' | 'en', decision: string, reason: string): { decision: string; reason: string } {
  if (lang === 'en') return { decision, reason };
  return { decision: itemDecisionsEs[decision] ?? decision, reason: itemDecisionReasonsEs[reason] ?? reason };
}
