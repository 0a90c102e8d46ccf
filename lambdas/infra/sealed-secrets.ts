import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { localKeyMaterial, scrypt } from './sealed-store';
import { traced } from './tracing';
import { Lru } from '#shared/lru';
import type { signingSecretPurposes, SigningSecretKind } from '#catalog/types';

/**
 * The signing secrets kept in table items (issue 31): webhook subscriptions' HMAC secrets and
 * partner accounts' manifest signing secrets. The item holds only ciphertext; this module seals
 * (encrypts) and opens (decrypts) it.
 *
 * In AWS: KMS Encrypt and Decrypt with the stage's customer-managed key (SIGNING_SECRETS_KEY_ARN,
 * lib/data.ts), directly, not envelope encryption: a secret is 50 bytes and KMS encrypts up to
 * 4 KB, so a data key would add a second cipher and a stored wrapped key for nothing (each open
 * would still be one KMS Decrypt). On the twin: AES-256-GCM under a key derived from the twin's
 * local key file (the one the marketplace and carrier credential files use).
 *
 * Either way the ciphertext is bound to its item by an encryption context (`purpose`, `account`,
 * and `subscription` for a webhook secret: KMS's encryption context, the twin's GCM associated
 * data), so a ciphertext copied to another item does not open. `purpose` is also what the IAM
 * grants are conditioned on (lib/functions.ts): a function that may open webhook secrets cannot
 * open manifest ones.
 */

export type SecretPurpose = (typeof signingSecretPurposes)[SigningSecretKind];

/** What a sealed secret is bound to: its encryption context. */
export interface SecretBinding {
  purpose: SecretPurpose;
  account: number;
  /** A webhook secret's subscription. */
  subscription?: number;
}

export interface SecretSealerPort {
  /** The stored form of `plain`: ciphertext bound to `binding`. */
  seal(plain: string, binding: SecretBinding): Promise<string>;
  /** The secret, when `sealed` was sealed by this sealer's key with the same binding; else `SecretUnreadable`. */
  open(sealed: string, binding: SecretBinding): Promise<string>;
}

/** A stored secret that does not open: another item's, tampered, or sealed under another key. */
export class SecretUnreadable extends Error {
  override readonly name = 'SecretUnreadable';
}

/** The encryption context, as KMS takes it (string values only). */
export function encryptionContext(b: SecretBinding): Record<string, string> {
  const ctx: Record<string, string> = { purpose: b.purpose, account: String(b.account) };
  if (b.subscription !== undefined) ctx.subscription = String(b.subscription);
  return ctx;
}

/** The encryption context in one canonical text (the cache's key, the twin's associated data). */
const contextText = (b: SecretBinding) => JSON.stringify(Object.entries(encryptionContext(b)).sort(([x], [y]) => x.localeCompare(y)));

/**
 * Opened secrets a warm process keeps (bounded, 15 minutes each): a delivery worker signs many
 * deliveries of one subscription, and each would otherwise be a KMS Decrypt. The ciphertext is the
 * key, so a rotated secret (a new ciphertext) is never answered from the cache; a key disabled in
 * KMS stops warm functions within the 15 minutes.
 */
const openedKeepMs = 15 * 60_000;

abstract class CachingSealer implements SecretSealerPort {
  private readonly opened = new Lru<string, { plain: string; until: number }>(1000);

  abstract seal(plain: string, binding: SecretBinding): Promise<string>;
  protected abstract decrypt(sealed: string, binding: SecretBinding): Promise<string>;

  async open(sealed: string, binding: SecretBinding): Promise<string> {
    const key = `${contextText(binding)}\n${sealed}`;
    const held = this.opened.get(key);
    if (held && held.until > Date.now()) return held.plain;
    const plain = await this.decrypt(sealed, binding);
    this.opened.set(key, { plain, until: Date.now() + openedKeepMs });
    return plain;
  }
}

/* ---- AWS KMS ---- */

const kmsPrefix = 'kms1.';

/** KMS Encrypt / Decrypt under SIGNING_SECRETS_KEY_ARN; the stored form is `kms1.<base64 ciphertext blob>`. */
export class KmsSealer extends CachingSealer {
  private client: KMSClient | undefined;

  private kms(): KMSClient {
    return (this.client ??= traced(new KMSClient({})));
  }

  private keyArn(): string {
    const arn = process.env.SIGNING_SECRETS_KEY_ARN?.trim();
    if (!arn) throw new Error('Missing environment variable SIGNING_SECRETS_KEY_ARN');
    return arn;
  }

  async seal(plain: string, binding: SecretBinding): Promise<string> {
    const res = await this.kms().send(new EncryptCommand({ KeyId: this.keyArn(), Plaintext: Buffer.from(plain, 'utf8'), EncryptionContext: encryptionContext(binding) }));
    if (!res.CiphertextBlob) throw new Error('KMS Encrypt answered no ciphertext');
    return kmsPrefix + Buffer.from(res.CiphertextBlob).toString('base64');
  }

  protected async decrypt(sealed: string, binding: SecretBinding): Promise<string> {
    if (!sealed.startsWith(kmsPrefix)) throw new SecretUnreadable(`The stored ${binding.purpose} secret was not sealed with KMS.`);
    try {
      // KeyId too: a ciphertext of another key is refused rather than decrypted with it.
      const res = await this.kms().send(
        new DecryptCommand({ KeyId: this.keyArn(), CiphertextBlob: Buffer.from(sealed.slice(kmsPrefix.length), 'base64'), EncryptionContext: encryptionContext(binding) }),
      );
      return Buffer.from(res.Plaintext!).toString('utf8');
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name === 'InvalidCiphertextException' || name === 'IncorrectKeyException') {
        throw new SecretUnreadable(`The stored ${binding.purpose} secret does not open: it belongs to another item, was changed, or was sealed under another key.`);
      }
      throw err;
    }
  }
}

/* ---- Local key (the twin) ---- */

const localPrefix = 'local1.';
/** scrypt's salt for the sealer's key: fixed, so every process of a data folder derives the same key. */
const localSalt = Buffer.from('despacho signing secrets v1');

/**
 * The twin's sealer: AES-256-GCM (a fresh 12-byte IV each time) under scrypt of `key`, else of
 * MARKETPLACE_CREDENTIALS_KEY, else of the random key in `<dataDir>/marketplace-credentials.key`
 * (the key the twin's credentials files use), with the encryption context as associated data.
 * The stored form is `local1.<iv>.<tag>.<ciphertext>` (base64url).
 */
export class LocalSealer extends CachingSealer {
  private key: Promise<Buffer> | undefined;
  private readonly keyFile: string;

  constructor(
    dataDir: string,
    private readonly opts: { key?: string } = {},
  ) {
    super();
    this.keyFile = join(resolve(dataDir), 'marketplace-credentials.key');
  }

  private cipherKey(): Promise<Buffer> {
    if (!this.key) {
      const material = this.opts.key ?? (process.env.MARKETPLACE_CREDENTIALS_KEY || undefined);
      this.key = (material ? Promise.resolve(material) : localKeyMaterial(this.keyFile)).then((m) => scrypt(m, localSalt));
      this.key.catch(() => (this.key = undefined));
    }
    return this.key;
  }

  async seal(plain: string, binding: SecretBinding): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.cipherKey(), iv);
    cipher.setAAD(Buffer.from(contextText(binding)));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return localPrefix + [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
  }

  protected async decrypt(sealed: string, binding: SecretBinding): Promise<string> {
    const parts = sealed.startsWith(localPrefix) ? sealed.slice(localPrefix.length).split('.') : [];
    const key = await this.cipherKey();
    try {
      if (parts.length !== 3) throw new Error('not a local sealed secret');
      const [iv, tag, data] = parts.map((p) => Buffer.from(p, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
      decipher.setAAD(Buffer.from(contextText(binding)));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadable(`The stored ${binding.purpose} secret does not open: it belongs to another item, was changed, or the twin's key is not the one it was sealed with.`);
    }
  }
}

let current: SecretSealerPort = new KmsSealer();
export const secretSealer = (): SecretSealerPort => current;
export function useSecretSealer(port: SecretSealerPort): void {
  current = port;
}
