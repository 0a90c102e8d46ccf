import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { bundleHandler } from '#scripts/bundle';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KmsSealer, LocalSealer, SecretUnreadable, type SecretBinding } from '#infra/sealed-secrets';

const hook: SecretBinding = { purpose: 'webhook-signing', account: 7, subscription: 41 };
const dirs: string[] = [];
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'sealer-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the twin sealer (local key file)', () => {
  it('seals to ciphertext that opens only under the same binding', async () => {
    const dir = dataDir();
    const sealer = new LocalSealer(dir);
    const sealed = await sealer.seal('whsec_abc', hook);
    expect(sealed).toMatch(/^local1\./);
    expect(sealed).not.toContain('abc');
    expect(await sealer.open(sealed, hook)).toBe('whsec_abc');
    expect(await new LocalSealer(dir).open(sealed, hook)).toBe('whsec_abc');
    expect(statSync(join(dir, 'marketplace-credentials.key')).mode & 0o777).toBe(0o600);
    for (const other of [
      { ...hook, subscription: 42 },
      { ...hook, account: 8 },
      { purpose: 'manifest-signing', account: 7 } as const,
    ]) {
      await expect(new LocalSealer(dir).open(sealed, other)).rejects.toBeInstanceOf(SecretUnreadable);
    }
  });

  it('refuses a ciphertext of another key, a tampered one and one that is no sealed secret', async () => {
    const sealed = await new LocalSealer(dataDir()).seal('whsec_abc', hook);
    await expect(new LocalSealer(dataDir()).open(sealed, hook)).rejects.toBeInstanceOf(SecretUnreadable);
    const sealer = new LocalSealer(dataDir(), { key: 'k' });
    const mine = await sealer.seal('whsec_abc', hook);
    // The character before the last, changed (it was set to A or B by the last one, and left as it was when it already was that letter).
    const flipped = mine.slice(0, -2) + (mine.at(-2) === 'A' ? 'B' : 'A') + mine.slice(-1);
    await expect(sealer.open(flipped, hook)).rejects.toBeInstanceOf(SecretUnreadable);
    await expect(sealer.open('whsec_abc', hook)).rejects.toBeInstanceOf(SecretUnreadable);
  });
});

describe('the KMS sealer', () => {
  const kms = mockClient(KMSClient);
  const keyArn = 'arn:aws:kms:sa-east-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  beforeEach(() => {
    kms.reset();
    process.env.AWS_REGION = 'sa-east-1';
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    process.env.SIGNING_SECRETS_KEY_ARN = keyArn;
  });

  it('encrypts with the stage key and the item as encryption context, and decrypts asking for both', async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('blob') });
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from('whsec_abc') });
    const sealer = new KmsSealer();
    const sealed = await sealer.seal('whsec_abc', hook);
    expect(sealed).toBe('kms1.' + Buffer.from('blob').toString('base64'));
    const enc = kms.commandCalls(EncryptCommand)[0].args[0].input;
    expect(enc).toMatchObject({ KeyId: keyArn, EncryptionContext: { purpose: 'webhook-signing', account: '7', subscription: '41' } });
    expect(Buffer.from(enc.Plaintext!).toString()).toBe('whsec_abc');
    expect(await sealer.open(sealed, hook)).toBe('whsec_abc');
    const dec = kms.commandCalls(DecryptCommand)[0].args[0].input;
    expect(dec).toMatchObject({ KeyId: keyArn, EncryptionContext: { purpose: 'webhook-signing', account: '7', subscription: '41' } });
    expect(Buffer.from(dec.CiphertextBlob!).toString()).toBe('blob');
  });

  it('opens a ciphertext once per warm process, and again for another binding', async () => {
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from('whsec_abc') });
    const sealer = new KmsSealer();
    for (let i = 0; i < 5; i++) await sealer.open('kms1.YmxvYg==', hook);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(1);
    await sealer.open('kms1.YmxvYg==', { ...hook, subscription: 9 });
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(2);
  });

  it('answers SecretUnreadable for a ciphertext KMS refuses (another item, another key) and without calling KMS for one of the twin', async () => {
    kms.on(DecryptCommand).rejects(Object.assign(new Error('bad'), { name: 'InvalidCiphertextException' }));
    await expect(new KmsSealer().open('kms1.YmxvYg==', hook)).rejects.toBeInstanceOf(SecretUnreadable);
    await expect(new KmsSealer().open('local1.a.b.c', hook)).rejects.toBeInstanceOf(SecretUnreadable);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(1);
  });

  it('fails clearly without SIGNING_SECRETS_KEY_ARN', async () => {
    delete process.env.SIGNING_SECRETS_KEY_ARN;
    await expect(new KmsSealer().seal('x', hook)).rejects.toThrow('SIGNING_SECRETS_KEY_ARN');
  });
});

describe('the KMS client in the bundles', () => {
  it('is only in the functions that seal or open a secret: not in the authorizer or a route that only reads accounts or subscriptions', async () => {
    const kmsBytes = async (handler: string) => {
      const dir = dataDir();
      return (await bundleHandler(handler, dir)).packages['@aws-sdk/client-kms'] ?? 0;
    };
    for (const handler of ['http/authorizer', 'http/auth/me', 'http/webhooks/subscription']) expect(await kmsBytes(handler), handler).toBe(0);
    for (const handler of ['workers/webhooks/delivery', 'http/admin/signing-secret']) expect(await kmsBytes(handler), handler).toBeGreaterThan(0);
  }, 120_000);
});
