import { route } from '../kit/route';
import { created } from '../kit/reply';
import { BadRequest, ValidationFailed } from '#core/errors';
import { proofFileProblem, proofView } from '#core/deliveries/proof';
import { recordDelivery } from '#services/deliveries/record';
import { proofUrl } from '#services/deliveries/find';
import { DeliveriesRecord } from '#catalog/deliveries';

/** A 4 MB file in base64 and the fields around it, under the 6 MB a Lambda request carries. */
const recordBodyBytes = 5_800_000;

/** Standard base64 (a data: URL prefix and line breaks tolerated); anything else is 400. */
function decode(value: string): Buffer {
  const body = value.replace(/^data:[\w.+-]+\/[\w.+-]+;base64,/, '').replace(/[\r\n\s]/g, '');
  if (body.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw new BadRequest('file_base64 is not valid base64.');
  return Buffer.from(body, 'base64');
}

export const handler = route({ ...DeliveriesRecord.schemas, maxBodyBytes: recordBodyBytes }, async ({ body, principal }) => {
  const { file_base64, file_name, ...input } = body;
  const bytes = decode(file_base64);
  const problem = proofFileProblem(bytes);
  if (problem) throw new ValidationFailed({ file_base64: [problem] });
  const { proof, replayed } = await recordDelivery(principal, input, { bytes, fileName: file_name });
  // A retry of the same delivery answers what the first request did.
  return created(proofView(proof, await proofUrl(proof)), replayed ? 'Proof of delivery already recorded.' : 'Proof of delivery recorded.');
});
