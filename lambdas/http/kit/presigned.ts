import { created, type Reply } from './reply';

/** Where and how to POST one file straight to storage (a presigned POST). */
export function presignedForm(upload: { id: string; fileSize: number; mimeType: string }, post: { url: string; fields: Record<string, string> }) {
  return {
    upload_id: upload.id,
    upload_url: post.url,
    method: 'POST' as const,
    fields: post.fields,
    file_field: 'file' as const,
    max_bytes: upload.fileSize,
    content_type: upload.mimeType,
  };
}

/** The 201 answer of an upload-url route: where and how to POST the file, then where to complete. */
export function presignedUploadAnswer(
  upload: { id: string; fileSize: number; mimeType: string },
  post: { url: string; fields: Record<string, string> },
  expiresInSeconds: number,
  completeUrl: string,
): Reply {
  return created(
    {
      ...presignedForm(upload, post),
      expires_in_seconds: expiresInSeconds,
      complete_url: completeUrl,
    },
    'POST the file to upload_url with these fields (file last), then call complete_url.',
  );
}
