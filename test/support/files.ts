import { samplePdf, samplePng } from '#bin/sample-files';

/** A small but real PDF; the text makes each one different. */
export const pdf = (text = 'Despacho test') => samplePdf(text);

/** A real PNG. */
export const png = () => samplePng();

/** multipart/form-data bytes as a browser would send them. */
export async function multipart(fields: Record<string, string>, file?: { name: string; data: Buffer; type?: string }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([file.data], { type: file.type ?? 'application/octet-stream' }), file.name);
  const res = new Response(form);
  return { body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type')! };
}
