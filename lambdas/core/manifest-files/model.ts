/**
 * Stored manifest files (spec 2.8 and 4.7): a courier's manifest kept as a file (JSON or Excel),
 * tagged with the courier's carrier code. Pure: no I/O, no AWS.
 */

export interface ManifestFileRecord {
  id: number;
  accountId: number;
  /** Upper-case carrier code, e.g. `DHL`. */
  courierCode: string;
  fileName: string;
  fileSize: number;
  mimeType: string;
  checksum: string;
  blobKey: string;
  manifestName?: string;
  description?: string;
  /** The token that uploaded it. */
  uploadedBy: number;
  uploadedAt: string;
}

/** A carrier code as accepted: 2 to 10 ASCII letters or digits, any case (stored upper-cased). */
export const courierCodePattern = /^[A-Za-z0-9]{2,10}$/;

/** The stored form of a carrier code: trimmed and upper-cased (`dhl` -> `DHL`). */
export function normalizeCourierCode(code: string): string {
  return code.trim().toUpperCase();
}

/** Page size of the list (spec 8 leaves the maximum open; it matches the document list's). */
export const defaultPerPage = 15;
export const maxPerPage = 100;

/** Signed file URLs last 60 minutes, as document downloads do (spec 8). */
export const fileUrlMinutes = 60;
