import * as v from 'valibot';
import { checkTaxId } from '../../core/customs/tax-id';
import { identifier } from '../kit/schemas';

/**
 * Bodies of the tax-id quota and client-info endpoints (spec 4.6). A tax id is a CUIT or CUIL
 * (11 digits, check digit checked) or a DNI (7 or 8 digits), hyphens, dots and spaces allowed:
 * `20-12345678-6`. An invalid one is 422 on `tax_id`, naming what failed (e.g. the check digit).
 */
export const TaxIdField = v.pipe(
  v.string('Must be a string.'),
  v.trim(),
  v.nonEmpty('Must not be empty.'),
  v.maxLength(20, 'Must be at most 20 characters.'),
  v.check(
    (s) => checkTaxId(s).valid,
    (issue) => `Not a valid CUIT, CUIL or DNI: ${checkTaxId(String(issue.input)).reason}.`,
  ),
);

const Awb = identifier(100);

export const QuotaCheckBody = v.object({
  tax_id: TaxIdField,
  awb_number: v.optional(Awb),
});

export const CanEditBody = v.object({
  awb_number: Awb,
});

export const ClientInfoBody = v.object({
  awb_number: Awb,
  tax_id: TaxIdField,
});
