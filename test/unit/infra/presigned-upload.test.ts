import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { HeadObjectCommand, NotFound, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { s3Blobs } from '#infra/blobs';

const s3 = mockClient(S3Client);
const bucket = 'despacho-dev-files';

beforeEach(() => {
  s3.reset();
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'AKIATESTTESTTEST';
  process.env.AWS_SECRET_ACCESS_KEY = 'test-secret';
  process.env.BUCKET_NAME = bucket;
});

function policyOf(fields: Record<string, string>): { expiration: string; conditions: unknown[] } {
  return JSON.parse(Buffer.from(fields.Policy, 'base64').toString('utf8'));
}

describe('the S3 presigned upload', () => {
  it('names the bucket in the URL and signs the key and the declared type', async () => {
    const { url, fields } = await s3Blobs.presignedUpload('documents/7/awb.pdf', {
      maxBytes: 10 * 1024 * 1024,
      contentType: 'application/pdf',
      expiresInSeconds: 900,
    });
    expect(url).toContain(bucket);
    expect(fields.key).toBe('documents/7/awb.pdf');
    expect(fields['Content-Type']).toBe('application/pdf');
    expect(fields['X-Amz-Algorithm']).toBe('AWS4-HMAC-SHA256');
    expect(fields['X-Amz-Credential']).toMatch(/^AKIATESTTESTTEST\/\d{8}\/us-east-1\/s3\/aws4_request$/);
    expect(fields['X-Amz-Signature']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('limits the size to 1 byte up to maxBytes and the Content-Type to the declared one', async () => {
    const { fields } = await s3Blobs.presignedUpload('documents/7/awb.pdf', {
      maxBytes: 10 * 1024 * 1024,
      contentType: 'application/pdf',
      expiresInSeconds: 900,
    });
    const policy = policyOf(fields);
    expect(policy.conditions).toContainEqual(['content-length-range', 1, 10 * 1024 * 1024]);
    expect(policy.conditions).toContainEqual(['eq', '$Content-Type', 'application/pdf']);
    expect(policy.conditions).toContainEqual({ key: 'documents/7/awb.pdf' });
    expect(policy.conditions).toContainEqual({ bucket });
  });

  it('expires the form after the given seconds', async () => {
    const before = Date.now();
    const { fields } = await s3Blobs.presignedUpload('documents/7/awb.pdf', { maxBytes: 100, contentType: 'image/png', expiresInSeconds: 900 });
    const expiration = Date.parse(policyOf(fields).expiration);
    expect(expiration).toBeGreaterThanOrEqual(before + 899_000);
    expect(expiration).toBeLessThanOrEqual(Date.now() + 900_000);
  });

  it('sends no request to S3 to presign', async () => {
    await s3Blobs.presignedUpload('documents/7/awb.pdf', { maxBytes: 100, contentType: 'image/png', expiresInSeconds: 60 });
    expect(s3.calls()).toHaveLength(0);
  });
});

describe('the S3 size lookup', () => {
  it('reads the stored size with HeadObject', async () => {
    s3.on(HeadObjectCommand, { Bucket: bucket, Key: 'documents/7/awb.pdf' }).resolves({ ContentLength: 12345 });
    expect(await s3Blobs.size('documents/7/awb.pdf')).toBe(12345);
    expect(s3.commandCalls(HeadObjectCommand)[0].args[0].input).toEqual({ Bucket: bucket, Key: 'documents/7/awb.pdf' });
  });

  it('gives nothing for a missing file', async () => {
    s3.on(HeadObjectCommand).rejects(new NotFound({ message: 'Not Found', $metadata: { httpStatusCode: 404 } }));
    expect(await s3Blobs.size('documents/7/missing.pdf')).toBeUndefined();
  });

  it('gives nothing for a bare 404', async () => {
    s3.on(HeadObjectCommand).rejects(new S3ServiceException({ name: 'UnknownError', $fault: 'client', $metadata: { httpStatusCode: 404 } }));
    expect(await s3Blobs.size('documents/7/missing.pdf')).toBeUndefined();
  });

  it('passes on any other failure', async () => {
    s3.on(HeadObjectCommand).rejects(new S3ServiceException({ name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 } }));
    await expect(s3Blobs.size('documents/7/awb.pdf')).rejects.toMatchObject({ name: 'AccessDenied' });
  });
});
