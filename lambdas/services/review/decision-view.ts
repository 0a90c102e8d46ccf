import { reviewOf, type ReviewDecisionRecord } from '#infra/entities/review';

/** A broker's decision on a product as GET .../review/decisions lists it and `manifest.reviewed` carries it. */
export function decisionView(d: ReviewDecisionRecord) {
  return {
    ...reviewOf(d),
    awb_number: d.awb,
    item_key: d.itemKey,
    customs_duty_before: d.dutyBefore ?? null,
    customs_duty: d.dutyAfter ?? null,
    customs_channel_before: d.channelBefore ?? null,
    customs_channel: d.channelAfter ?? null,
  };
}
