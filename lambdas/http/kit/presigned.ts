import { created, type Reply } from './reply';

/** The 201 answer of an upload-url route: where and how to POST the file, then where to complete. */
export function presignedUploadAnswer(
  upload: { id: string; fileSize: number; mimeType: string },
  post: { url: string; fields: Record<string, string> },
  expiresInSeconds: number,
  completeUrl: string,
): Reply {
  return created(
    {
      upload_id: upload.id,
      upload_url: post.url,
      method: 'POST',
      fields: post.fields,
      file_field: 'file',
      max_bytes: upload.fileSize,
      content_type: upload.mimeType,
      expires_in_seconds: expiresInSeconds,
      complete_url: completeUrl,
    },
    'POST the file to upload_url with these fields (file last), then call complete_url.',
  );
}
