import type { StageName } from '#core/pipeline/stages';
import type { ProcessedResult } from '#core/manifests/model';
import { classifyShipments, shipmentRegime } from '#core/customs/regime';
import { regimeRulesAt } from '#core/customs/regime-rules';
import { calculateLines, calculatedFields } from '#core/customs/landed-cost';
import { argentineDate, taxRulesAt } from '#core/customs/tax-rules';
import { importedDutySource, rateStatuses, tariffRatesOf } from '#core/customs/tariff-rates';
import { customsChannel, shipmentChannel } from '#core/customs/channel';
import { checkShipmentTaxIds, type InvalidTaxIdAwb } from '../customs/webservices';
import { tariffClassifier } from '#infra/tariff/classifier-port';
import { classifyInputOf, type Classification } from '#core/tariff/classifier';
import { tariffMemory } from '#infra/tariff/memory-port';
import { loadTariffTable } from '#infra/tariff/table-source';
import { memoryKeysOf, type MemoryKey, type MemoryMatch } from '../review/fingerprint';
import type { PageItem, StageOutput } from './pages-store';
import { recordMetric } from '#shared/metrics';
import { channelRules } from '#core/customs/channel-rules';

/**
 * What each stage does to one page of items. Every stage reads the page (the items as the run
 * saw them) and what the stages it depends on found (`stageInputs`), and answers the item results
 * with its part added. Shipments (the items of one AWB) are never split across pages.
 */
export interface StageContext {
  accountId: number;
  at: Date;
}

type Results = Record<string, ProcessedResult>;

function byAwb(items: readonly PageItem[]): Map<string, PageItem[]> {
  const out = new Map<string, PageItem[]>();
  for (const it of items) {
    const list = out.get(it.awb);
    if (list) list.push(it);
    else out.set(it.awb, [it]);
  }
  return out;
}

/** A shipment's regime from what classification found for its items (the strictest one). */
const regimeOf = (group: readonly PageItem[], prior: Results) => shipmentRegime(group.map((it) => ({ regime: prior[it.itemKey]?.regime ?? 'C' })));

/** Stage 1: regime P / C / X per item, with its reasons (prohibited goods, limits, consignee kind). */
function classification(items: readonly PageItem[], at: Date): Results {
  const decisions = classifyShipments(items, regimeRulesAt(at));
  const out: Results = {};
  for (const it of items) {
    const d = decisions.get(it.itemKey)!;
    out[it.itemKey] = { regime: d.regime, regime_reasons: d.reasons, prohibited: d.prohibited?.label ?? null };
  }
  return out;
}

/** Stage 2: the consignee's tax id and the yearly personal quota, once per shipment. */
async function webservices(items: readonly PageItem[], prior: Results, ctx: StageContext): Promise<Results> {
  const shipments = [...byAwb(items)].map(([awb, group]) => ({
    awb,
    accountId: ctx.accountId,
    taxId: group.find((it) => it.data.consigneeIdNumber)?.data.consigneeIdNumber ?? null,
    taxIdType: group.find((it) => it.data.consigneeIdType)?.data.consigneeIdType ?? null,
    regime: regimeOf(group, prior),
    itemKeys: group.map((it) => it.itemKey),
  }));
  const checked = await checkShipmentTaxIds(shipments, ctx.at);
  const out: Results = {};
  for (const it of items) {
    const r = checked.get(it.awb)!;
    const before = prior[it.itemKey] ?? {};
    // The quota can turn a personal shipment commercial; a prohibited item stays prohibited.
    const regime = before.regime === 'X' ? 'X' : r.regime === 'C' && before.regime === 'P' ? 'C' : before.regime;
    out[it.itemKey] = {
      ...before,
      regime,
      regime_reasons: [...(before.regime_reasons ?? []), ...(regime !== before.regime ? r.reasons : [])],
      tax_id: r.tax_id,
      tax_id_formatted: r.tax_id_result.formatted,
      tax_id_valid: r.tax_id_result.valid,
      tax_id_reason: r.alert ?? r.tax_id_result.reason,
      tax_id_alert: r.alert,
      quota: r.quota,
    };
  }
  return out;
}

/**
 * The confidence under which the customs channel sends an item's tariff code to document review
 * (the `confidence_below` rule of the channel rules); such items are counted as low-confidence.
 */
const lowConfidence = channelRules.flatMap((r) => (r.when.kind === 'confidence_below' ? [r.when.threshold] : [])).reduce((a, b) => Math.max(a, b), 0);

/** Items the tariff classifier takes between two turns of the event loop (about 5 ms of work). */
const itemsBetweenYields = 50;

/**
 * The partner-code memory's answers for a page: what a broker decided (confirmed or corrected) for
 * a product of the same account with the same product link or the same description, when that code
 * is still a row of the table in force, citing the decision. An account without memories costs one
 * read per page.
 */
async function remembered(items: readonly PageItem[], accountId: number): Promise<Map<string, Classification>> {
  const out = new Map<string, Classification>();
  let keys = new Map<string, MemoryKey[]>();
  const memories = await tariffMemory().lookup(accountId, () => {
    keys = new Map(items.map((it) => [it.itemKey, memoryKeysOf(it.data)]));
    return [...keys.values()].flatMap((ks) => ks.map((k) => k.key));
  });
  if (!memories.size) return out;
  const table = await loadTariffTable();
  const rows = new Map(table.rows.map((r) => [r.ncm, r]));
  for (const [itemKey, ks] of keys) {
    const hit = ks.map((k) => ({ k, m: memories.get(k.key) })).find(({ m }) => m && rows.has(m.ncmCode));
    if (!hit?.m) continue;
    const row = rows.get(hit.m.ncmCode)!;
    out.set(itemKey, {
      ncm_code: row.ncm,
      duty_rate: row.duty_rate,
      confidence: 1,
      source: 'broker',
      reason: decisionCited(row.ncm, hit.k.match, hit.m),
      description: row.description,
      duty_source: row.duty_source ?? importedDutySource(table.version),
    });
  }
  return out;
}

const sameWhat: Record<MemoryMatch, string> = { link: 'product link', description: 'description', product: 'product' };

/** The decision a remembered answer rests on, as the product's reason says it. */
export function decisionCited(ncm: string, match: MemoryMatch, m: { decidedAt: string; decidedBy?: string; batchId?: string; awb?: string; revision?: number }): string {
  const where = [m.batchId && `batch ${m.batchId}`, m.awb && `AWB ${m.awb}`, m.revision !== undefined && `revision ${m.revision}`].filter(Boolean).join(', ');
  return `A broker decided ${ncm} for the same ${sameWhat[match]} on ${m.decidedAt.slice(0, 10)}${m.decidedBy ? ` (${m.decidedBy})` : ''}${where ? `: ${where}` : ''} (partner-code memory).`;
}

/** Stage 3: the tariff code (NCM) of every item, with its confidence and source (from the item alone, or the partner-code memory). */
async function ai(items: readonly PageItem[], ctx: StageContext): Promise<Results> {
  const classifier = await tariffClassifier();
  const memory = await remembered(items, ctx.accountId);
  const out: Results = {};
  const bySource = new Map<string, number>();
  let low = 0;
  for (const [n, it] of items.entries()) {
    // A page is hundreds of items of CPU work: every `itemsBetweenYields` it lets waiting I/O run
    // (the twin runs every page of a step in one process, web services' quota writes among them).
    if (n && n % itemsBetweenYields === 0) await new Promise((resolve) => setImmediate(resolve));
    const c = memory.get(it.itemKey) ?? (await classifier.classify(classifyInputOf(it.data)));
    bySource.set(c.source, (bySource.get(c.source) ?? 0) + 1);
    if (c.confidence < lowConfidence) low++;
    out[it.itemKey] = {
      ncm_code: c.ncm_code,
      duty_rate: c.duty_rate,
      duty_source: { status: c.duty_source.status, source: c.duty_source.source },
      classification_confidence: c.confidence,
      classification_source: c.source,
      classification_reason: c.reason,
      ...(c.candidates ? { classification_candidates: c.candidates } : {}),
    };
  }
  for (const [source, n] of bySource) recordMetric('ItemsClassified', n, { by: source });
  if (low) recordMetric('LowConfidenceClassifications', low);
  return out;
}

/** Stage 4: CIF, duty, statistics fee, VAT and DDP per item, and the shipment's customs channel. */
function calculations(items: readonly PageItem[], prior: Results, at: Date): Results {
  const rules = taxRulesAt(at);
  const date = argentineDate(at);
  const out: Results = {};
  for (const [awb, group] of byAwb(items)) {
    // Which of each product's rates were verified; VAT follows the NCM.
    const rates = new Map(
      group.map((it) => {
        const p = prior[it.itemKey];
        return [it.itemKey, p?.ncm_code ? tariffRatesOf({ ncm: p.ncm_code, duty_rate: p.duty_rate ?? 0, duty_source: p.duty_source, statistics_fee_rate: rules.statistics_fee_rate, date }) : undefined];
      }),
    );
    const calc = calculateLines(
      awb,
      group.map((it) => ({
        itemKey: it.itemKey,
        data: it.data,
        regime: prior[it.itemKey]?.regime,
        taxIdValid: prior[it.itemKey]?.tax_id_valid === true,
        dutyRate: prior[it.itemKey]?.duty_rate,
        vatRate: rates.get(it.itemKey)?.vat.rate,
      })),
      rules,
    );
    const regime = calc.regime;
    const channels = group.map((it) =>
      customsChannel({
        awb,
        regime,
        taxIdValid: prior[it.itemKey]?.tax_id_valid ?? false,
        classificationConfidence: prior[it.itemKey]?.classification_confidence ?? 0,
        fob_usd: calc.totals.fob,
        cif_usd: calc.totals.cif,
        prohibited: prior[it.itemKey]?.regime === 'X',
      }),
    );
    const channel = shipmentChannel(channels);
    for (const it of group) {
      const b = calc.products.get(it.itemKey)!;
      out[it.itemKey] = {
        ...prior[it.itemKey],
        ...calculatedFields(b),
        ...(rates.get(it.itemKey) ? { tariff_rates: rateStatuses(rates.get(it.itemKey)!) } : {}),
        customs_channel: channel.channel,
        channel_reasons: channel.reasons,
      };
    }
  }
  return out;
}

export async function runStage(stage: StageName, items: readonly PageItem[], prior: StageOutput, ctx: StageContext): Promise<StageOutput> {
  const before = prior as Results;
  switch (stage) {
    case 'classification':
      return classification(items, ctx.at);
    case 'webservices':
      return webservices(items, before, ctx);
    case 'ai':
      return ai(items, ctx);
    case 'calculations':
      return calculations(items, before, ctx.at);
  }
}

/** Whether the stage reports anything when it closes (only web services does). */
export const stageHasAlerts = (stage: StageName): boolean => stage === 'webservices';

/**
 * AWBs per `manifest.invalid_cuit_detected` event. One event for a whole manifest grew with it
 * (10,000 flagged AWBs made about 1 MB, over EventBridge's 256 KB per entry and DynamoDB's 400 KB
 * per item); 500 entries are 55-65 KB with common AWBs, tax ids and reasons.
 */
export const alertPartSize = 500;

/** What a stage flags on one page, for its close to report: web services' invalid tax ids and used-up quotas, once per AWB. */
export function pageAlerts(stage: StageName, items: readonly PageItem[], output: StageOutput): InvalidTaxIdAwb[] {
  if (!stageHasAlerts(stage)) return [];
  const out = output as Results;
  // A page never splits a shipment, so an AWB seen once per page is seen once per run.
  const seen = new Map<string, InvalidTaxIdAwb>();
  for (const it of items) {
    const r = out[it.itemKey];
    if (r?.tax_id_alert && !seen.has(it.awb)) seen.set(it.awb, { awb_number: it.awb, tax_id: r.tax_id ?? null, reason: r.tax_id_alert });
  }
  return [...seen.values()];
}

/**
 * What a stage reports for the whole run when it closes, from what its pages flagged (in page
 * order): the web services' invalid tax ids and used-up quotas, in parts of at most
 * `alertPartSize` AWBs, each numbered (`part` of `parts`) and carrying the run's `total_awbs`.
 */
export function stageAlerts(
  stage: StageName,
  flagged: readonly InvalidTaxIdAwb[],
): { type: string; data: { awbs: InvalidTaxIdAwb[]; part: number; parts: number; total_awbs: number } }[] {
  if (!stageHasAlerts(stage) || !flagged.length) return [];
  const parts = Math.ceil(flagged.length / alertPartSize);
  return Array.from({ length: parts }, (_, k) => ({
    type: 'manifest.invalid_cuit_detected',
    data: { awbs: flagged.slice(k * alertPartSize, (k + 1) * alertPartSize), part: k + 1, parts, total_awbs: flagged.length },
  }));
}
