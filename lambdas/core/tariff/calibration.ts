/**
 * The classifier's calibration, measured by `npm run eval:classify -- --write` on the labeled set
 * (test/fixtures/tariff-labeled.csv) with the built-in table and the HS fallback tier: accuracy at 6
 * digits per confidence band, and `review_below`, the lowest confidence at and above which at least
 * `target_precision` of the labeled items are right. The channel rules send anything below it to
 * document review (core/customs/channel-rules.ts). Rewritten by the command; edit the set, not this.
 */

export interface Calibration {
  /** YYYY-MM-DD. */
  measured_on: string;
  items: number;
  accuracy6: number;
  target_precision: number;
  review_below: number;
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

export const calibration: Calibration = {
  "measured_on": "2026-11-28",
  "items": 644,
  "accuracy6": 0.974,
  "target_precision": 0.98,
  "review_below": 0.5,
  "bands": [
    {
      "from": 0,
      "to": 0.3,
      "items": 0,
      "accuracy6": null
    },
    {
      "from": 0.3,
      "to": 0.5,
      "items": 242,
      "accuracy6": 0.946
    },
    {
      "from": 0.5,
      "to": 0.6,
      "items": 33,
      "accuracy6": 0.939
    },
    {
      "from": 0.6,
      "to": 0.7,
      "items": 72,
      "accuracy6": 0.972
    },
    {
      "from": 0.7,
      "to": 0.8,
      "items": 103,
      "accuracy6": 1
    },
    {
      "from": 0.8,
      "to": 0.9,
      "items": 111,
      "accuracy6": 1
    },
    {
      "from": 0.9,
      "to": 1,
      "items": 83,
      "accuracy6": 1
    }
  ]
};
