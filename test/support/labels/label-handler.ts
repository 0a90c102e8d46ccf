import { renderLabel, type LabelInput } from '#infra/label-pdf';

/** A stand-in Lambda handler for the bundle test: the label of the shipment it is given, base64. */
export async function handler(event: LabelInput): Promise<string> {
  return (await renderLabel(event)).toString('base64');
}
