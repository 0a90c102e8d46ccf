import { describe, expect, it } from 'vitest';
import { parseMultipart } from '#http/kit/multipart';
import { BadRequest, PayloadTooLarge, UnsupportedMediaType, ValidationFailed } from '#core/errors';
import { samplePdf } from '#bin/sample-files';

const boundary = '----despacho-test-boundary';
const contentType = `multipart/form-data; boundary=${boundary}`;
const limits = { fileBytes: 1024 * 1024 };

type Part = { name: string; value: string } | { name: string; fileName: string; type?: string; data: Buffer; rawDisposition?: string };

/** A multipart body written by hand, CRLF line ends and all. */
function multipart(parts: Part[], opts: { end?: boolean } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('value' in part) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`, 'utf8'));
    } else {
      const disposition = part.rawDisposition ?? `form-data; name="${part.name}"; filename="${part.fileName}"`;
      chunks.push(Buffer.from(`Content-Disposition: ${disposition}\r\nContent-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`, 'utf8'));
      chunks.push(part.data, Buffer.from('\r\n'));
    }
  }
  if (opts.end !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** What a browser or fetch sends for a FormData: the bytes and the content type with its boundary. */
async function encode(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const res = new Response(form);
  return { body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type')! };
}

describe('parseMultipart', () => {
  it('parses fields and one file from a hand-written body', async () => {
    const pdf = samplePdf();
    const body = multipart([
      { name: 'type', value: 'air_waybill' },
      { name: 'reference', value: 'AWB 123-45678901' },
      { name: 'file', fileName: 'awb.pdf', type: 'application/pdf', data: pdf },
    ]);
    const out = await parseMultipart(body, contentType, limits);
    expect(out.fields).toEqual({ type: 'air_waybill', reference: 'AWB 123-45678901' });
    expect(out.files).toHaveLength(1);
    expect(out.files[0]).toMatchObject({ field: 'file', fileName: 'awb.pdf', mimeType: 'application/pdf' });
    expect(out.files[0].data.equals(pdf)).toBe(true);
    expect(out.fieldsAfterFile).toEqual([]);
  });

  it('parses the bytes fetch produces for a FormData', async () => {
    const form = new FormData();
    form.append('type', 'manifest');
    form.append('file', new Blob([samplePdf()], { type: 'application/pdf' }), 'manifest.pdf');
    const { body, contentType: type } = await encode(form);
    const out = await parseMultipart(body, type, limits);
    expect(out.fields).toEqual({ type: 'manifest' });
    expect(out.files[0].fileName).toBe('manifest.pdf');
    expect(out.files[0].data.equals(samplePdf())).toBe(true);
  });

  it('keeps binary file content byte for byte', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) & 0xff));
    const withBoundaryLookalike = Buffer.concat([bytes, Buffer.from(`\r\n--${boundary.slice(0, -1)}x\r\n`), bytes]);
    const out = await parseMultipart(multipart([{ name: 'file', fileName: 'a.bin', data: withBoundaryLookalike }]), contentType, limits);
    expect(out.files[0].data.equals(withBoundaryLookalike)).toBe(true);
  });

  it('keeps a unicode file name sent as raw UTF-8', async () => {
    const body = multipart([{ name: 'file', fileName: 'Guía aérea 中文 📦.pdf', data: samplePdf() }]);
    const out = await parseMultipart(body, contentType, limits);
    expect(out.files[0].fileName).toBe('Guía aérea 中文 📦.pdf');
  });

  it('keeps a unicode file name sent by FormData', async () => {
    const form = new FormData();
    form.append('file', new Blob([samplePdf()]), 'Declaración año.pdf');
    const { body, contentType: type } = await encode(form);
    expect((await parseMultipart(body, type, limits)).files[0].fileName).toBe('Declaración año.pdf');
  });

  it('keeps a unicode file name sent as an RFC 5987 filename*', async () => {
    const body = multipart([
      { name: 'file', fileName: '', data: samplePdf(), rawDisposition: `form-data; name="file"; filename*=UTF-8''${encodeURIComponent('Guía.pdf')}` },
    ]);
    expect((await parseMultipart(body, contentType, limits)).files[0].fileName).toBe('Guía.pdf');
  });

  it('keeps unicode field values', async () => {
    const out = await parseMultipart(multipart([{ name: 'note', value: 'Aduana de Ezeiza, año 2026 ✈' }]), contentType, limits);
    expect(out.fields.note).toBe('Aduana de Ezeiza, año 2026 ✈');
  });

  it('ignores a file input the browser sent empty', async () => {
    const out = await parseMultipart(multipart([{ name: 'file', fileName: '', data: Buffer.alloc(0) }]), contentType, limits);
    expect(out.files).toEqual([]);
  });

  it('tells which fields came after the file', async () => {
    const body = multipart([
      { name: 'key', value: 'a' },
      { name: 'file', fileName: 'a.pdf', data: samplePdf() },
      { name: 'policy', value: 'p' },
    ]);
    expect((await parseMultipart(body, contentType, limits)).fieldsAfterFile).toEqual(['policy']);
  });

  it('does not let a field named __proto__ change the prototype', async () => {
    const out = await parseMultipart(multipart([{ name: '__proto__', value: 'x' }]), contentType, limits);
    expect(Object.getPrototypeOf(out.fields)).toBe(Object.prototype);
    expect(Object.keys(out.fields)).toEqual(['__proto__']);
  });

  it('refuses a multipart content type without a boundary with 400', async () => {
    const body = multipart([{ name: 'a', value: 'b' }]);
    await expect(parseMultipart(body, 'multipart/form-data', limits)).rejects.toBeInstanceOf(BadRequest);
  });

  it('refuses a body that is not multipart/form-data with 415', async () => {
    await expect(parseMultipart(Buffer.from('{}'), 'application/json', limits)).rejects.toBeInstanceOf(UnsupportedMediaType);
  });

  it('refuses a body cut short with 400', async () => {
    const full = multipart([
      { name: 'type', value: 'air_waybill' },
      { name: 'file', fileName: 'awb.pdf', data: samplePdf() },
    ]);
    await expect(parseMultipart(full.subarray(0, full.length - 200), contentType, limits)).rejects.toBeInstanceOf(BadRequest);
    const unterminated = multipart([{ name: 'file', fileName: 'awb.pdf', data: samplePdf() }], { end: false });
    await expect(parseMultipart(unterminated, contentType, limits)).rejects.toBeInstanceOf(BadRequest);
  });

  it('refuses an empty body and one with another boundary with 400', async () => {
    await expect(parseMultipart(Buffer.alloc(0), contentType, limits)).rejects.toBeInstanceOf(BadRequest);
    const other = multipart([{ name: 'a', value: 'b' }]);
    await expect(parseMultipart(other, 'multipart/form-data; boundary=something-else', limits)).rejects.toBeInstanceOf(BadRequest);
  });

  it('refuses a file over the limit with 413', async () => {
    const body = multipart([{ name: 'file', fileName: 'big.pdf', data: Buffer.alloc(2048, 1) }]);
    await expect(parseMultipart(body, contentType, { fileBytes: 2047 })).rejects.toBeInstanceOf(PayloadTooLarge);
    expect((await parseMultipart(body, contentType, { fileBytes: 2048 })).files[0].data).toHaveLength(2048);
  });

  it('names the limit in people\'s units when a file is too large', async () => {
    const body = multipart([{ name: 'file', fileName: 'big.pdf', data: Buffer.alloc(2048, 1) }]);
    await expect(parseMultipart(body, contentType, { fileBytes: 1024 })).rejects.toThrow('The file is larger than 1.0 KB.');
  });

  it('refuses two files when one is allowed with 400', async () => {
    const body = multipart([
      { name: 'file', fileName: 'a.pdf', data: samplePdf() },
      { name: 'file', fileName: 'b.pdf', data: samplePdf() },
    ]);
    await expect(parseMultipart(body, contentType, limits)).rejects.toBeInstanceOf(BadRequest);
    expect((await parseMultipart(body, contentType, { ...limits, files: 2 })).files).toHaveLength(2);
  });

  it('refuses more fields than allowed with 400', async () => {
    const body = multipart(Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, value: 'x' })));
    await expect(parseMultipart(body, contentType, limits)).rejects.toBeInstanceOf(BadRequest);
    await expect(parseMultipart(body, contentType, { ...limits, fields: 21 })).resolves.toBeDefined();
  });

  it('refuses a field longer than allowed with 422 on that field', async () => {
    const body = multipart([{ name: 'notes', value: 'x'.repeat(64 * 1024 + 1) }]);
    const err = await parseMultipart(body, contentType, limits).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).errors).toEqual({ notes: ['Too long.'] });
    const atLimit = multipart([{ name: 'notes', value: 'x'.repeat(64 * 1024) }]);
    expect((await parseMultipart(atLimit, contentType, limits)).fields.notes).toHaveLength(64 * 1024);
  });

  it('refuses a malformed part header with 400', async () => {
    const body = Buffer.from(`--${boundary}\r\nthis is not a header\r\n\r\nx\r\n--${boundary}--\r\n`);
    await expect(parseMultipart(body, contentType, limits)).rejects.toBeInstanceOf(BadRequest);
  });
});
