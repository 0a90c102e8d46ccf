/**
 * The classifier's calibration, measured by `npm run eval:classify -- --write` on the calibration
 * set (test/fixtures/tariff-heldout.csv: descriptions the classifier was not built or tuned on) with
 * the built-in table and the HS fallback tier. `map` turns the classifier's raw score into the
 * confidence it answers: per band of raw score, the share of the calibration items in it that were
 * right at 6 digits (shrunk towards the raw score where a band holds few items, then made monotone),
 * so a confidence of 0.8 means about 8 in 10 such answers are right. `review_below` is the lowest
 * confidence (in steps of 0.05 from 0.5) at and above which at least `target_precision` of the
 * calibration items are right; the channel rules send anything below it to document review
 * (core/customs/channel-rules.ts). `bands` is the reliability table of the calibrated confidence on
 * the same set. Rewritten by the command; edit the set, not this.
 */

export interface ConfidenceStep {
  /** Raw scores in [from, to) (the last band includes 1). */
  from: number;
  to: number;
  /** Calibration items whose raw score fell in the band, and how many of them were right at 6 digits. */
  items: number;
  right: number;
  /** The confidence answered for a raw score in the band. */
  confidence: number;
}

export interface Calibration {
  /** YYYY-MM-DD. */
  measured_on: string;
  /** The set it was measured on, and its size. */
  set: string;
  items: number;
  accuracy6: number;
  target_precision: number;
  review_below: number;
  map: ConfidenceStep[];
  /**
   * The Bedrock tier's map from the model's own confidence, fit on the same calibration set by
   * `npm run eval:classify -- --bedrock <model> --write` for that model; absent, or for another
   * model, the model's answers stay under the review threshold (docs/tariff/calibration.md).
   */
  ai?: { model: string; measured_on: string; items: number; accuracy6: number; map: ConfidenceStep[] };
  bands: { from: number; to: number; items: number; accuracy6: number | null }[];
}

/** The confidence bands of the reliability table: [from, to). */
export const calibrationBands: readonly (readonly [number, number])[] = [
  [0, 0.3],
  [0.3, 0.5],
  [0.5, 0.6],
  [0.6, 0.7],
  [0.7, 0.8],
  [0.8, 0.9],
  [0.9, 1],
];

/**
 * The raw-score bands the map is fit on. Below 0.3 are the fallback row's answers (nothing matched):
 * they keep their raw score.
 */
export const rawBands: readonly (readonly [number, number])[] = [
  [0.3, 0.45],
  [0.45, 0.5],
  [0.5, 0.55],
  [0.55, 0.6],
  [0.6, 0.65],
  [0.65, 0.7],
  [0.7, 0.75],
  [0.75, 0.8],
  [0.8, 0.85],
  [0.85, 0.9],
  [0.9, 1],
];

/** Pseudo-items at a band's raw midpoint: a band of few calibration items stays near its raw score. */
export const shrinkItems = 4;

const inBand = (x: number, from: number, to: number) => x >= from && (x < to || (to === 1 && x <= 1));

/**
 * The map from raw score to confidence that a calibration set gives: per raw band holding items,
 * (right + 4 x the band's midpoint) / (items + 4), then pooled with its neighbours where it would
 * fall below a lower band (pool adjacent violators), so a higher raw score never answers a lower
 * confidence. A band no item fell in answers what the band below it answers (its raw midpoint, at
 * most the next band's, when none is below): no evidence, no higher confidence.
 */
export function fitConfidenceMap(results: readonly { raw: number; ok: boolean }[]): ConfidenceStep[] {
  const steps = rawBands.map(([from, to]) => {
    const inIt = results.filter((r) => inBand(r.raw, from, to));
    return { from, to, items: inIt.length, right: inIt.filter((r) => r.ok).length };
  });
  // Pool adjacent violators over the bands that hold items: (value, weight) blocks.
  const blocks: { value: number; weight: number; bands: number[] }[] = [];
  steps.forEach((s, k) => {
    if (!s.items) return;
    const weight = s.items + shrinkItems;
    blocks.push({ value: (s.right + shrinkItems * ((s.from + s.to) / 2)) / weight, weight, bands: [k] });
    while (blocks.length > 1 && blocks[blocks.length - 2].value > blocks[blocks.length - 1].value) {
      const b = blocks.pop()!;
      const a = blocks.pop()!;
      blocks.push({ value: (a.value * a.weight + b.value * b.weight) / (a.weight + b.weight), weight: a.weight + b.weight, bands: [...a.bands, ...b.bands] });
    }
  });
  const value = new Map(blocks.flatMap((b) => b.bands.map((k) => [k, Math.round(b.value * 100) / 100] as const)));
  const firstHeld = steps.findIndex((s) => s.items > 0);
  let below: number | undefined;
  return steps.map((s, k) => {
    const own = value.get(k);
    if (own !== undefined) below = own;
    const empty = below ?? Math.min(Math.round(((s.from + s.to) / 2) * 100) / 100, firstHeld >= 0 ? value.get(firstHeld)! : 1);
    return { ...s, confidence: own ?? empty };
  });
}

/** Below the review threshold: what an answer no calibration vouches for answers at most. */
export function underReview(reviewBelow = calibration.review_below): number {
  return Math.round((reviewBelow - 0.01) * 100) / 100;
}

/**
 * The confidence a Bedrock answer carries: the model's own, mapped by the calibration fit for that
 * model, else kept under the review threshold (a model's word about itself is no evidence).
 */
export function calibratedAi(model: string, confidence: number, c: Calibration = calibration): number {
  if (c.ai?.model !== model) return Math.min(confidence, underReview(c.review_below));
  return calibrated(confidence, c.ai.map);
}

/** The confidence answered for a raw score: the map's band, or the raw score below the first band. */
export function calibrated(raw: number, map: readonly ConfidenceStep[] = calibration.map): number {
  const step = map.find((s) => inBand(raw, s.from, s.to));
  return step ? step.confidence : raw;
}

export const calibration: Calibration = {
  "measured_on": "2026-12-06",
  "set": "test/fixtures/tariff-heldout.csv",
  "items": 306,
  "accuracy6": 0.712,
  "target_precision": 0.95,
  "review_below": 0.8,
  "map": [
    {
      "from": 0.3,
      "to": 0.45,
      "items": 14,
      "right": 1,
      "confidence": 0.14
    },
    {
      "from": 0.45,
      "to": 0.5,
      "items": 107,
      "right": 65,
      "confidence": 0.56
    },
    {
      "from": 0.5,
      "to": 0.55,
      "items": 9,
      "right": 6,
      "confidence": 0.56
    },
    {
      "from": 0.55,
      "to": 0.6,
      "items": 15,
      "right": 4,
      "confidence": 0.56
    },
    {
      "from": 0.6,
      "to": 0.65,
      "items": 19,
      "right": 9,
      "confidence": 0.56
    },
    {
      "from": 0.65,
      "to": 0.7,
      "items": 26,
      "right": 21,
      "confidence": 0.79
    },
    {
      "from": 0.7,
      "to": 0.75,
      "items": 16,
      "right": 15,
      "confidence": 0.89
    },
    {
      "from": 0.75,
      "to": 0.8,
      "items": 35,
      "right": 32,
      "confidence": 0.9
    },
    {
      "from": 0.8,
      "to": 0.85,
      "items": 22,
      "right": 22,
      "confidence": 0.97
    },
    {
      "from": 0.85,
      "to": 0.9,
      "items": 16,
      "right": 16,
      "confidence": 0.98
    },
    {
      "from": 0.9,
      "to": 1,
      "items": 27,
      "right": 27,
      "confidence": 0.99
    }
  ],
  "bands": [
    {
      "from": 0,
      "to": 0.3,
      "items": 14,
      "accuracy6": 0.071
    },
    {
      "from": 0.3,
      "to": 0.5,
      "items": 0,
      "accuracy6": null
    },
    {
      "from": 0.5,
      "to": 0.6,
      "items": 150,
      "accuracy6": 0.56
    },
    {
      "from": 0.6,
      "to": 0.7,
      "items": 0,
      "accuracy6": null
    },
    {
      "from": 0.7,
      "to": 0.8,
      "items": 26,
      "accuracy6": 0.808
    },
    {
      "from": 0.8,
      "to": 0.9,
      "items": 16,
      "accuracy6": 0.938
    },
    {
      "from": 0.9,
      "to": 1,
      "items": 100,
      "accuracy6": 0.97
    }
  ]
};
