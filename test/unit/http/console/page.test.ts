import { describe, expect, it } from 'vitest';
import { bucketOrigin, consoleCsp } from '#http/console/page';

describe("the console's content security policy", () => {
  it("lets previews fetch the stage's bucket only, by its virtual-hosted name, never any amazonaws.com host", () => {
    expect(bucketOrigin({ BUCKET_NAME: 'despacho-prod-files-1a2b3c', AWS_REGION: 'sa-east-1' })).toEqual(['https://despacho-prod-files-1a2b3c.s3.sa-east-1.amazonaws.com']);
    expect(consoleCsp['connect-src']).not.toContain('*');
  });

  it('names no other origin on the twin (region local), without a bucket, or for a name that is not a bucket name', () => {
    expect(bucketOrigin({ BUCKET_NAME: 'files', AWS_REGION: 'local' })).toEqual([]);
    expect(bucketOrigin({ AWS_REGION: 'us-east-1' })).toEqual([]);
    expect(bucketOrigin({ BUCKET_NAME: "x' https://evil.example", AWS_REGION: 'us-east-1' })).toEqual([]);
  });
});
