import { humanSize } from '../documents/files';
import type { ManifestFileRecord } from './model';

/**
 * The stored manifest file of spec 2.8 (`file_name`, `file_url`, `file_size` {bytes, human},
 * `courier_code`, `uploaded_at`), plus its id, the optional name and description given at
 * upload, the type taken from the content and the checksum. `file_url` is signed by the caller.
 */
export function manifestFileView(r: ManifestFileRecord, fileUrl: string) {
  return {
    id: r.id,
    file_name: r.fileName,
    file_url: fileUrl,
    file_size: { bytes: r.fileSize, human: humanSize(r.fileSize) },
    courier_code: r.courierCode,
    manifest_name: r.manifestName ?? null,
    description: r.description ?? null,
    mime_type: r.mimeType,
    checksum: r.checksum,
    uploaded_at: r.uploadedAt,
  };
}
