import type { ManifestItem } from '#core/manifests/submission';
import type { ProcessedResult } from '#core/manifests/model';
import type { ProcessedProduct } from '#core/manifests/views';
import {
  acrossCouriers,
  addToFlight,
  consigneeSeen,
  holdsHash,
  maxCrossCourierWindowDays,
  othersInWindow,
  sortedHashes,
  taxGroups,
  taxKeyHash,
  windowDays,
  windowStart,
  flightFlags,
  ncmKey,
  parseRiskSettings,
  riskRulesAt,
  underValuation,
  unitsOf,
  valueBin,
  valueStats,
  Flight,
  type FlightRisk,
  type RiskFlag,
  type ConsigneeSeen,
  type RiskRules,
  type ValueStats,
} from '#core/customs/risk-rules';
import { blobs } from '#infra/blobs';
import { getSetting } from '#infra/entities/settings';
import { addValues, valueHistories } from '#infra/entities/risk-history';
import { keepSeen, seenOn } from '#infra/entities/risk-consignees';
import { mapConcurrent } from '#shared/concurrency';
import { logger } from '#shared/logger';

/**
 * The risk flags of a run (issue 40, item 5), computed within the finish's one pass over the
 * run's results (batch-results.ts), never a pass of its own:
 *
 * 1. while the finish reads each page's items and results (the loop that sorts them), `add` keeps
 *    what the rules read of each item: per AWB its consignee keys, FOB, units by kind and quota
 *    outcome (once per AWB), per item its NCM and FOB per unit;
 * 2. `prepare`, once: the flight's flags by AWB (one in-memory pass over the AWBs), the history
 *    of each NCM of the run (keyed BatchGetItems, 100 NCMs each, never a read per item), and the
 *    other couriers' recent flights that hold one of the flight's tax ids (the window's lists of
 *    tax-id hashes, one Query per day; the summaries file of a flight only when it holds one);
 * 3. while the finish merges and writes the results, `apply` puts each product's flags on it
 *    (`risk_flags`), before the summary counts it;
 * 4. `keepFlight`: the flight's AWBs kept beside the results (a later run of only some AWBs, a
 *    tax-id correction, judges them with the rest of the flight); `afterCompletion`, once the batch
 *    is complete: the flight's summaries per tax id and their hashes kept for other couriers'
 *    flights (a re-run replaces them), and, on the batch's first completion only, the run's values added to the NCMs'
 *    histories (one ADD per NCM, 100 to a transaction; a re-run or a broker's revision adds none).
 *
 * The rules' numbers: `riskRulesAt` with the `riskRules` setting (JSON) over the defaults.
 */

/** Where a run keeps its flight's AWBs: beside its results. A broker's revision (`<run>.r<n>-<hash>`) reads its base run's. */
const flightKey = (batchId: string, runId: string) => `exports/${batchId}/${runId.replace(/\.r\d+-[0-9a-f]{8}$/, '')}/results/risk-flight.json`;
/** Where a run keeps its flight's summaries per tax id, for other couriers' flights (`SummariesFile`). */
const summariesKey = (batchId: string, runId: string) => `exports/${batchId}/${runId}/results/risk-consignees.json`;

/** A flight's summaries file: per tax key, what the flight held of it. */
interface SummariesFile {
  by: Record<string, ConsigneeSeen>;
}

/** Flights' summaries files read at once. */
const filesAtOnce = 4;

export class RiskPass {
  private readonly flight = new Flight();
  /** This run's items with an NCM and a unit value. */
  private readonly unitValues = new Map<string, { ncm: string; usd: number }>();
  /** This run's values per NCM, by bin (what `finish` adds to the history). */
  private readonly runBins = new Map<string, Map<number, number>>();
  private flags = new Map<string, readonly RiskFlag[]>();
  private stats = new Map<string, ValueStats>();
  private merged: FlightRisk = {};
  /** The flight's tax ids: each with its label and AWBs. */
  private groups = new Map<string, { label: string; awbs: string[] }>();

  private constructor(
    readonly rules: RiskRules,
    private readonly batch: RiskBatch,
    private readonly previous: FlightRisk | undefined,
  ) {}

  private get batchId() {
    return this.batch.batchId;
  }

  private get runId() {
    return this.batch.runId;
  }

  /** The run's date, as the summaries and the window count days. */
  private get day() {
    return this.batch.at.toISOString().slice(0, 10);
  }

  /** The pass of a run; `previous`, the finished run whose results this run overlays (a partial run). */
  static async start(batch: RiskBatch, previous: string | undefined): Promise<RiskPass> {
    const { batchId, at } = batch;
    const rules = riskRulesAt(at, parseRiskSettings(await getSetting('riskRules')));
    let prior: FlightRisk | undefined;
    if (rules.enabled && previous) {
      const body = await blobs().get(flightKey(batchId, previous));
      prior = body ? (JSON.parse(body.toString('utf8')) as FlightRisk) : undefined;
      if (!prior) logger.warn('risk flags: the previous run kept no flight; its other AWBs are judged without this run', { batchId, previous });
    }
    return new RiskPass(rules, batch, prior);
  }

  get enabled(): boolean {
    return this.rules.enabled;
  }

  /** One item of the run with its results (step 1). */
  add(awb: string, itemKey: string, data: ManifestItem, result: ProcessedResult | undefined): void {
    if (!this.rules.enabled) return;
    addToFlight(this.flight, awb, data, result);
    const ncm = ncmKey(result?.ncm_code);
    const fob = data.fobValueUsd;
    if (!ncm || typeof fob !== 'number' || !(fob > 0)) return;
    const usd = fob / unitsOf(data);
    this.unitValues.set(itemKey, { ncm, usd });
    const bins = this.runBins.get(ncm) ?? new Map<number, number>();
    const bin = valueBin(usd);
    bins.set(bin, (bins.get(bin) ?? 0) + 1);
    this.runBins.set(ncm, bins);
  }

  /** The flight's flags and the NCMs' histories, once every item was added (step 2). */
  async prepare(): Promise<void> {
    if (!this.rules.enabled) return;
    const merged: FlightRisk = {};
    if (this.previous) for (const [awb, e] of Object.entries(this.previous)) if (!this.flight.awbs.has(awb)) merged[awb] = e;
    for (const [awb, e] of this.flight.awbs) merged[awb] = e;
    this.merged = merged;
    this.flags = flightFlags(merged, this.rules);
    this.groups = taxGroups(merged);
    const [histories, others] = await Promise.all([valueHistories([...this.runBins.keys()]), this.otherCouriers()]);
    this.stats = new Map([...histories].map(([ncm, h]) => [ncm, valueStats(h)]));
    for (const [taxKey, seen] of others) {
      const g = this.groups.get(taxKey)!;
      const flag = acrossCouriers(g.label, this.summaryOf(g.awbs), seen, this.rules);
      if (!flag) continue;
      // The AWBs of one group mostly share one list of flags (flightFlags): they share the longer one too.
      const longer = new Map<readonly RiskFlag[] | undefined, readonly RiskFlag[]>();
      for (const awb of g.awbs) {
        const had = this.flags.get(awb);
        let list = longer.get(had);
        if (!list) longer.set(had, (list = [...(had ?? []), flag]));
        this.flags.set(awb, list);
      }
    }
  }

  /**
   * What other couriers' flights of the window hold of this flight's tax ids, by tax key: the
   * window's lists of hashes (one Query per day), probed with each tax id's hash; the summaries
   * file of each flight that holds one, read (4 at once) and its exact keys taken.
   */
  private async otherCouriers(): Promise<Map<string, ConsigneeSeen[]>> {
    const out = new Map<string, ConsigneeSeen[]>();
    if (!this.groups.size) return out;
    const from = windowStart(this.batch.at, this.rules.cross_courier_window_days);
    const flights = othersInWindow(await seenOn(windowDays(this.batch.at, this.rules.cross_courier_window_days)), this.batch.accountId, from);
    if (!flights.length) return out;
    const wanted = new Map<string, string[]>();
    for (const taxKey of this.groups.keys()) {
      const h = taxKeyHash(taxKey);
      for (const f of flights) if (holdsHash(f.hashes, h)) wanted.set(f.file, [...(wanted.get(f.file) ?? []), taxKey]);
    }
    await mapConcurrent([...wanted], filesAtOnce, async ([file, keys]) => {
      const body = await blobs().get(file);
      if (!body) return;
      const summaries = (JSON.parse(body.toString('utf8')) as SummariesFile).by;
      // The flight is another account's, of the window (its summaries carry its account and day).
      for (const taxKey of keys) if (summaries[taxKey]) out.set(taxKey, [...(out.get(taxKey) ?? []), summaries[taxKey]]);
    });
    return out;
  }

  private summaryOf(awbs: readonly string[]): ConsigneeSeen {
    return consigneeSeen(
      awbs.map((a) => this.merged[a]),
      this.batch.accountId,
      this.day,
    );
  }

  /** The product with its flags (step 3); a product of an AWB this run did not process keeps its under-valuation flag. */
  apply(p: ProcessedProduct): ProcessedProduct {
    if (!this.rules.enabled) return p;
    let flags: readonly RiskFlag[] = this.flags.get(p.awb_number) ?? [];
    if (this.flight.awbs.has(p.awb_number)) {
      const u = this.unitValues.get(p.item_key);
      const f = u ? underValuation(u.ncm, u.usd, this.stats.get(u.ncm), this.rules) : null;
      if (f) flags = [...flags, f];
    } else {
      const kept = (p.risk_flags ?? []).filter((f) => f.code === 'under_valuation');
      if (kept.length) flags = [...flags, ...kept];
    }
    if (flags.length) return { ...p, risk_flags: flags };
    if (!p.risk_flags) return p;
    const { risk_flags: _gone, ...rest } = p;
    return rest;
  }

  /** Keeps the flight beside the results (step 4, before the batch completes). */
  async keepFlight(): Promise<void> {
    if (!this.rules.enabled) return;
    await blobs().put(flightKey(this.batchId, this.runId), Buffer.from(JSON.stringify(this.merged)), 'application/json');
  }

  /** The flight's summaries file, then its item of tax-id hashes pointing at it (so an item always finds its file). */
  private async keepSummaries(ttl: number): Promise<void> {
    if (!this.groups.size) return;
    const by = Object.fromEntries([...this.groups].map(([taxKey, g]) => [taxKey, this.summaryOf(g.awbs)]));
    const file = summariesKey(this.batchId, this.runId);
    await blobs().put(file, Buffer.from(JSON.stringify({ by } satisfies SummariesFile)), 'application/json');
    await keepSeen({ batchId: this.batchId, account: this.batch.accountId, day: this.day, hashes: sortedHashes(this.groups.keys()), file }, ttl);
  }

  /**
   * Once the batch is complete (as the CSV and the workbook are made: the next flight reads these,
   * this one does not wait for them): the flight's summary per tax id, for other couriers' flights
   * to read, and on the batch's first completion the run's values added to the NCMs' histories. A
   * failure loses these for the next flights' rules, never the run.
   */
  async afterCompletion(firstCompletion: boolean): Promise<void> {
    if (!this.rules.enabled) return;
    const ttl = Math.floor(this.batch.at.getTime() / 1000) + (maxCrossCourierWindowDays + 1) * 86_400;
    await Promise.all([
      this.keepSummaries(ttl).catch((err: unknown) =>
        logger.warn('risk flags: the flight\'s tax ids were not kept for other couriers\' flights', { batchId: this.batchId, runId: this.runId, error: String(err) }),
      ),
      firstCompletion
        ? addValues(this.runBins, this.runId).catch((err: unknown) =>
            logger.warn('risk flags: the run\'s values were not added to the NCM histories', { batchId: this.batchId, runId: this.runId, error: String(err) }),
          )
        : undefined,
    ]);
  }
}

/** The run the flags are computed for: its batch, its account (the courier), its date. */
export interface RiskBatch {
  batchId: string;
  runId: string;
  accountId: number;
  at: Date;
}
