import { summaryInPesos, type RateAnswer } from '#core/customs/exchange-rate';
import { toCents, toNumber, type Cents } from '#core/customs/money';
import type { ProcessedProduct } from '#core/manifests/views';
import { tallyReview, type ReviewTally } from '#core/review/queue';
import { emptyRiskTally, tallyRisk } from '#core/customs/risk-rules';

/**
 * The manifest summary of spec 2.6, counted product by product as the batch's results are
 * written (they are never all in memory at once), money summed in cents.
 */
export class SummaryTally {
  private readonly awbs = new Set<string>();
  private products = 0;
  private readonly regimes = { P: 0, C: 0, X: 0 };
  private amountToPay: Cents = 0n;
  /** The products awaiting the broker's review and what they pay (the inbox's counts, issue 40). */
  private readonly review: ReviewTally = { pending: 0, atStake: 0n };
  /** The products the risk rules flagged (issue 40, item 5); not counted when the rules are off. */
  private readonly risk = emptyRiskTally();

  constructor(
    private readonly countRisk = true,
    /** The run's exchange rate (or why there is none); absent, the summary has no pesos (a run prepared before them). */
    private readonly rate?: RateAnswer,
  ) {}

  add(p: ProcessedProduct): void {
    this.awbs.add(p.awb_number);
    this.products++;
    if (p.regime) this.regimes[p.regime]++;
    this.amountToPay += toCents(p.amount_to_pay ?? 0);
    tallyReview(this.review, p);
    tallyRisk(this.risk, p.risk_flags);
  }

  summary() {
    return {
      total_awbs: this.awbs.size,
      total_products: this.products,
      personal_items: this.regimes.P,
      commercial_items: this.regimes.C,
      prohibited_items: this.regimes.X,
      amount_to_pay: toNumber(this.amountToPay),
      currency: 'USD',
      review_pending: this.review.pending,
      review_at_stake: toNumber(this.review.atStake),
      ...(this.countRisk ? { risk_flags: this.risk } : {}),
      ...(this.rate ? summaryInPesos(this.amountToPay, this.rate) : {}),
    };
  }
}
