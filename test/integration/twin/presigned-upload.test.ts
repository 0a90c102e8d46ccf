import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { blobs } from '#infra/blobs';
import { maxDocumentBytes } from '#core/documents/files';
import { useTwin } from '#support/twin';
import { samplePdf } from '#bin/sample-files';

const t = useTwin();
const clock = manualClock(new Date());
beforeAll(() => useClock(clock));
afterAll(() => useSystemClock());

const pdf = { maxBytes: 1024 * 1024, contentType: 'application/pdf', expiresInSeconds: 900 };

/** Posts the form as a browser would: the presigned fields, then the file, last. */
async function post(url: string, fields: Record<string, string>, file: Buffer | undefined, opts: { fileType?: string } = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([file], { type: opts.fileType ?? 'application/pdf' }), 'awb.pdf');
  const res = await fetch(url, { method: 'POST', body: form });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe('presigned uploads to the twin', () => {
  it('stores a file posted with the returned URL and fields, answering 204', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/1/awb.pdf', pdf);
    expect(url).toBe(`${t.twin.url}/_blobs-upload`);
    const res = await post(url, fields, samplePdf());
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await blobs().get('documents/1/awb.pdf'))?.equals(samplePdf())).toBe(true);
    expect(await blobs().size('documents/1/awb.pdf')).toBe(samplePdf().length);
  });

  it('stores the file under the signed type, whatever type the file part declares', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/1b/awb.pdf', pdf);
    expect((await post(url, fields, samplePdf(), { fileType: 'text/html' })).status).toBe(204);
    const download = await fetch(await blobs().downloadUrl('documents/1b/awb.pdf', { expiresInSeconds: 60 }));
    expect(download.headers.get('content-type')).toBe('application/pdf');
  });

  it('accepts a file of exactly 10 MiB when that is the limit', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/big/scan.pdf', { ...pdf, maxBytes: maxDocumentBytes });
    const big = Buffer.alloc(maxDocumentBytes, 0x41);
    expect((await post(url, fields, big)).status).toBe(204);
    expect(await blobs().size('documents/big/scan.pdf')).toBe(maxDocumentBytes);
  });

  it('refuses a tampered policy or signature with 403 AccessDenied', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/2/awb.pdf', pdf);
    const policy = JSON.parse(Buffer.from(fields.policy, 'base64url').toString('utf8'));
    const bigger = Buffer.from(JSON.stringify({ ...policy, maxBytes: 10 ** 9 })).toString('base64url');
    const tampered = [
      { ...fields, policy: bigger },
      { ...fields, signature: fields.signature.replace(/^./, (c) => (c === '0' ? '1' : '0')) },
      { ...fields, signature: '' },
    ];
    for (const f of tampered) {
      const res = await post(url, f, samplePdf());
      expect(res.status).toBe(403);
      expect(res.text).toContain('<Code>AccessDenied</Code>');
    }
    expect(await blobs().get('documents/2/awb.pdf')).toBeUndefined();
  });

  it('refuses an expired form with 403', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/3/awb.pdf', pdf);
    clock.advance(901_000);
    const res = await post(url, fields, samplePdf());
    expect(res.status).toBe(403);
    expect(res.text).toContain('Policy expired');
    expect(await blobs().size('documents/3/awb.pdf')).toBeUndefined();
  });

  it('refuses a Content-Type other than the signed one with 403', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/4/awb.pdf', pdf);
    const res = await post(url, { ...fields, 'Content-Type': 'text/html' }, samplePdf());
    expect(res.status).toBe(403);
    expect(res.text).toContain('$Content-Type');
    const { 'Content-Type': _dropped, ...withoutType } = fields;
    expect((await post(url, withoutType, samplePdf())).status).toBe(403);
  });

  it('refuses a key other than the signed one with 403', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/5/awb.pdf', pdf);
    const res = await post(url, { ...fields, key: 'documents/6/other.pdf' }, samplePdf());
    expect(res.status).toBe(403);
    expect(await blobs().get('documents/6/other.pdf')).toBeUndefined();
    expect(await blobs().get('documents/5/awb.pdf')).toBeUndefined();
  });

  it('refuses a field the policy does not sign with 403', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/7/awb.pdf', pdf);
    expect((await post(url, { ...fields, success_action_redirect: 'https://evil.example' }, samplePdf())).status).toBe(403);
  });

  it('refuses a file over maxBytes with 400 EntityTooLarge', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/8/awb.pdf', { ...pdf, maxBytes: 1000 });
    const res = await post(url, fields, Buffer.alloc(1001, 0x41));
    expect(res.status).toBe(400);
    expect(res.text).toContain('<Code>EntityTooLarge</Code>');
    expect((await post(url, fields, Buffer.alloc(1000, 0x41))).status).toBe(204);
  });

  it('refuses an empty file with 400 EntityTooSmall', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/9/awb.pdf', pdf);
    const res = await post(url, fields, Buffer.alloc(0));
    expect(res.status).toBe(400);
    expect(res.text).toContain('<Code>EntityTooSmall</Code>');
  });

  it('refuses a body larger than the twin reads with 400 EntityTooLarge', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/10/awb.pdf', pdf);
    const res = await post(url, fields, Buffer.alloc(41 * 1024 * 1024, 0x41));
    expect(res.status).toBe(400);
    expect(res.text).toContain('<Code>EntityTooLarge</Code>');
  });

  it('ignores fields sent after the file, as S3 does', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/11/awb.pdf', pdf);
    const form = new FormData();
    form.append('file', new Blob([samplePdf()]), 'awb.pdf');
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const res = await fetch(url, { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("field named 'key'");
  });

  it('refuses a form without a file or with two files with 400', async () => {
    const { url, fields } = await blobs().presignedUpload('documents/12/awb.pdf', pdf);
    expect((await post(url, fields, undefined)).status).toBe(400);
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([samplePdf()]), 'a.pdf');
    form.append('file', new Blob([samplePdf()]), 'b.pdf');
    expect((await fetch(url, { method: 'POST', body: form })).status).toBe(400);
  });

  it('refuses a body that is not a multipart form with 412', async () => {
    const { url } = await blobs().presignedUpload('documents/13/awb.pdf', pdf);
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(412);
  });

  it('refuses to sign a key that would leave the store', async () => {
    await expect(blobs().presignedUpload('../escape.pdf', pdf)).rejects.toThrow();
  });

  it('knows no size for a missing file', async () => {
    expect(await blobs().size('documents/none/missing.pdf')).toBeUndefined();
  });
});
