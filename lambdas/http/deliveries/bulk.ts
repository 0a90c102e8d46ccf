import { route } from '../kit/route';
import { created } from '../kit/reply';
import { importDay } from '#services/deliveries/bulk';
import { DeliveriesBulk } from '#catalog/deliveries';

/** The answer is the same on a retry: the day and each row's AWB, in the CSV's order. */
export const handler = route(DeliveriesBulk.schemas, async ({ body, principal }) => {
  const result = await importDay(principal, body.day, { csvUploadId: body.csv_upload_id, zipUploadId: body.zip_upload_id });
  return created(
    { day: result.day, proofs: result.proofs.length, awb_numbers: result.proofs.map((p) => p.awbNumber) },
    `${result.proofs.length} proofs of delivery kept for ${result.day}.`,
  );
});
