import type { ConfidenceStep } from './calibration';
import type { DutySource } from '../customs/tariff-rates';
import type { HsIndex } from './hs-fallback';
import type { TariffRow } from './table';

/** What the offline classifier (classifier.ts) takes and answers, shared by the modules it is composed of. */

/** `broker`: the partner-code memory gave a broker's earlier decision for the same product (services/review). */
export type ClassificationSource = 'partner' | 'offline' | 'ai' | 'hs-fallback' | 'broker';

export interface Classification {
  /**
   * The 8-digit NCM, `dddd.dd.dd`; from the HS fallback tier, the 6-digit HS subheading `dddd.dd`
   * when the tariff table has no NCM under it (the tier completes 8 digits only where the table knows them).
   */
  ncm_code: string;
  /** Duty of that NCM, percent. */
  duty_rate: number;
  /** 0 to 1; below 0.3 means nothing matched (the fallback row). */
  confidence: number;
  source: ClassificationSource;
  /** Why, in a sentence an operator can read. */
  reason: string;
  /** The NCM's Spanish description. */
  description: string;
  /** Where the duty rate comes from (verified, unverified, or the operator's imported table). */
  duty_source: DutySource;
  /**
   * Two codes for a broker to choose between, each with its reason: the partner's declared NCM (kept,
   * first) and the classifier's answer, when an answer that is always reviewed disagrees with a valid
   * declared NCM the table does not have (`keepDeclared`). Absent otherwise.
   */
  candidates?: ClassificationCandidate[];
}

/** One of the codes a classification leaves to review. */
export interface ClassificationCandidate {
  ncm_code: string;
  source: ClassificationSource;
  confidence: number;
  reason: string;
}

export interface ClassifyInput {
  description?: string;
  name?: string;
  category?: string;
  /** The partner's code (HS6, NCM or longer), any punctuation. */
  hsCode?: string;
}

export interface Candidate {
  row: TariffRow;
  score: number;
  /** The description's words and phrases the row matched (normalized: accents and plurals folded), at most 6: why it was proposed. */
  matched: string[];
}

/** What the partner's hsCode decided: a kept classification, or a note on why it was not used. */
export interface PartnerCheck {
  classification?: Classification;
  note?: string;
}

export interface OfflineClassifier {
  /** The table's rows in NCM order. */
  readonly rows: readonly TariffRow[];
  /**
   * The classification of a product. With `hs` (the HS fallback tier), a description the table's best
   * row explains less of than a subheading of the whole nomenclature gets that subheading instead.
   */
  classify(input: ClassifyInput, hs?: HsIndex): Classification;
  /**
   * Whether the HS tier could change the answer: nothing matches, the best row leaves a word of the
   * description unexplained, or the partner declared an NCM the table lacks (the tier checks it is valid).
   */
  hsCouldHelp(input: ClassifyInput): boolean;
  /** The best `n` rows for the description (no partner code, no fallback), best first. */
  candidates(input: ClassifyInput, n: number): Candidate[];
  /** The partner hsCode alone: kept when the table has it, else a note saying why not. */
  partner(input: ClassifyInput): PartnerCheck;
  /** The answer when nothing matches (or the AI answered none), with a low confidence. */
  fallback(reason: string): Classification;
}

export interface OfflineClassifierOptions {
  /** The NCM answered when nothing matches; if the table lacks it, the table's first row. */
  fallbackNcm?: string;
  /**
   * The map from raw score to answered confidence (calibration.ts); `null` answers the raw score
   * (`npm run eval:classify` fits the map on it). Defaults to the committed calibration.
   */
  confidenceMap?: readonly ConfidenceStep[] | null;
}
