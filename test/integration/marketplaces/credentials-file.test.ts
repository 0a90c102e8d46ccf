import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MarketplaceConnection } from '#core/orders/marketplace';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { CredentialsUnreadable, LocalMarketplaceCredentials } from '#infra/marketplace-credentials';

const token = 'shpat_5ecr3t_70k3n_do_not_leak';
const shopify: MarketplaceConnection = { channel: 'shopify', baseUrl: 'https://acme.myshopify.com', credentials: { accessToken: token } };
const ml: MarketplaceConnection = { channel: 'meli', baseUrl: 'https://api.mercadolibre.com', credentials: { accessToken: 'APP_USR-123', sellerId: '777' } };

let dir: string;
const savedKey = process.env.MARKETPLACE_CREDENTIALS_KEY;

beforeAll(() => useClock(manualClock(new Date('2025-03-01T12:00:00.000Z'))));
afterAll(() => useSystemClock());
beforeEach(() => {
  delete process.env.MARKETPLACE_CREDENTIALS_KEY;
  dir = mkdtempSync(join(tmpdir(), 'despacho-credentials-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  if (savedKey === undefined) delete process.env.MARKETPLACE_CREDENTIALS_KEY;
  else process.env.MARKETPLACE_CREDENTIALS_KEY = savedKey;
});

const file = () => join(dir, 'marketplace-credentials.json');
const stored = () => JSON.parse(readFileSync(file(), 'utf8'));

describe('the encrypted local credentials file', () => {
  it('gives back the connection it keeps', async () => {
    const store = new LocalMarketplaceCredentials(dir);
    await store.put(1, shopify);
    expect(await store.get(1, 'shopify')).toEqual(shopify);
    expect(await store.get(1, 'amazon')).toBeUndefined();
    expect(await store.get(2, 'shopify')).toBeUndefined();
  });

  it('lists an account’s connections without their credentials', async () => {
    const store = new LocalMarketplaceCredentials(dir);
    await store.put(1, shopify);
    await store.put(1, ml);
    await store.put(2, shopify);
    expect(await store.list(1)).toEqual([
      { channel: 'meli', baseUrl: 'https://api.mercadolibre.com', updatedAt: '2025-03-01T12:00:00.000Z' },
      { channel: 'shopify', baseUrl: 'https://acme.myshopify.com', updatedAt: '2025-03-01T12:00:00.000Z' },
    ]);
    expect(await store.list(3)).toEqual([]);
  });

  it('replaces a connection put again and forgets a removed one', async () => {
    const store = new LocalMarketplaceCredentials(dir);
    await store.put(1, shopify);
    await store.put(1, { ...shopify, credentials: { accessToken: 'shpat_new' } });
    expect((await store.get(1, 'shopify'))?.credentials).toEqual({ accessToken: 'shpat_new' });
    await store.remove(1, 'shopify');
    await store.remove(1, 'amazon');
    expect(await store.get(1, 'shopify')).toBeUndefined();
  });

  it('never writes a credential in plain text', async () => {
    await new LocalMarketplaceCredentials(dir).put(1, shopify);
    const raw = readFileSync(file(), 'utf8');
    for (const form of [token, Buffer.from(token).toString('base64'), Buffer.from(token).toString('hex'), 'accessToken']) {
      expect(raw).not.toContain(form);
    }
    for (const name of readdirSync(dir)) expect(readFileSync(join(dir, name), 'utf8')).not.toContain(token);
  });

  it('keeps its key and its file readable by their owner only', async () => {
    await new LocalMarketplaceCredentials(dir).put(1, shopify);
    expect(statSync(join(dir, 'marketplace-credentials.key')).mode & 0o777).toBe(0o600);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
  });

  it('reads what another store on the same directory wrote', async () => {
    await new LocalMarketplaceCredentials(dir).put(1, shopify);
    expect(await new LocalMarketplaceCredentials(dir).get(1, 'shopify')).toEqual(shopify);
  });

  it('refuses a tampered ciphertext', async () => {
    const store = new LocalMarketplaceCredentials(dir);
    await store.put(1, shopify);
    const content = stored();
    const data = Buffer.from(content.entries['1/shopify'].data, 'base64');
    data[5] ^= 0x01;
    content.entries['1/shopify'].data = data.toString('base64');
    writeFileSync(file(), JSON.stringify(content));
    await expect(store.get(1, 'shopify')).rejects.toThrow(CredentialsUnreadable);
    await expect(store.get(1, 'shopify')).rejects.toThrow(/cannot be decrypted: the file was changed/);
  });

  it('refuses a truncated authentication tag', async () => {
    const store = new LocalMarketplaceCredentials(dir);
    await store.put(1, shopify);
    const content = stored();
    content.entries['1/shopify'].tag = Buffer.from(content.entries['1/shopify'].tag, 'base64').subarray(0, 4).toString('base64');
    writeFileSync(file(), JSON.stringify(content));
    await expect(store.get(1, 'shopify')).rejects.toThrow(CredentialsUnreadable);
  });

  it('refuses an entry moved to another account', async () => {
    const store = new LocalMarketplaceCredentials(dir);
    await store.put(1, shopify);
    const content = stored();
    content.entries['2/shopify'] = content.entries['1/shopify'];
    writeFileSync(file(), JSON.stringify(content));
    await expect(store.get(2, 'shopify')).rejects.toThrow(CredentialsUnreadable);
  });

  it('uses MARKETPLACE_CREDENTIALS_KEY when it is set, and refuses to read with another key', async () => {
    process.env.MARKETPLACE_CREDENTIALS_KEY = 'twin-passphrase-one';
    await new LocalMarketplaceCredentials(dir).put(1, shopify);
    expect(existsSync(join(dir, 'marketplace-credentials.key'))).toBe(false);
    expect(await new LocalMarketplaceCredentials(dir).get(1, 'shopify')).toEqual(shopify);
    process.env.MARKETPLACE_CREDENTIALS_KEY = 'twin-passphrase-two';
    await expect(new LocalMarketplaceCredentials(dir).get(1, 'shopify')).rejects.toThrow(CredentialsUnreadable);
  });

  describe('a Mercado Libre connection stored before the rename, under the former code mercadolibre', () => {
    /** What the store wrote before meli: the entry `1/mercadolibre`, its value and AAD naming mercadolibre. */
    const storeFormer = (store: LocalMarketplaceCredentials) => store.put(1, { ...ml, channel: 'mercadolibre' as never });

    it('is still found, answered as meli, and listed as meli', async () => {
      const store = new LocalMarketplaceCredentials(dir);
      await storeFormer(store);
      expect(Object.keys(stored().entries)).toEqual(['1/mercadolibre']);
      expect(await store.get(1, 'meli')).toEqual(ml);
      expect(await store.list(1)).toEqual([{ channel: 'meli', baseUrl: 'https://api.mercadolibre.com', updatedAt: '2025-03-01T12:00:00.000Z' }]);
    });

    it('is replaced by connecting meli again, and removed by disconnecting meli', async () => {
      const store = new LocalMarketplaceCredentials(dir);
      await storeFormer(store);
      await store.put(1, { ...ml, credentials: { accessToken: 'APP_USR-new', sellerId: '777' } });
      expect(Object.keys(stored().entries)).toEqual(['1/meli']);
      expect((await store.get(1, 'meli'))?.credentials.accessToken).toBe('APP_USR-new');
      await storeFormer(store);
      await store.remove(1, 'meli');
      expect(stored().entries).toEqual({});
      expect(await store.get(1, 'meli')).toBeUndefined();
    });

    it('is migrated to meli (re-encrypted, bound to the meli entry), and a second migration changes nothing', async () => {
      const store = new LocalMarketplaceCredentials(dir);
      await storeFormer(store);
      await store.put(2, ml);
      expect(await store.migrateFormer(1, 'meli')).toBe(true);
      expect(Object.keys(stored().entries).sort()).toEqual(['1/meli', '2/meli']);
      expect(await new LocalMarketplaceCredentials(dir).get(1, 'meli')).toEqual(ml);
      const before = readFileSync(file(), 'utf8');
      expect(await store.migrateFormer(1, 'meli')).toBe(false);
      expect(await store.migrateFormer(2, 'meli')).toBe(false);
      expect(readFileSync(file(), 'utf8')).toBe(before);
    });

    it('is dropped, not copied over, when a meli connection was made since', async () => {
      const store = new LocalMarketplaceCredentials(dir);
      await storeFormer(store);
      const content = stored();
      await store.put(1, { ...ml, credentials: { accessToken: 'APP_USR-new', sellerId: '777' } });
      // Put the former entry back beside the new one, as if both were there when the migration ran.
      writeFileSync(file(), JSON.stringify({ ...stored(), entries: { ...stored().entries, '1/mercadolibre': content.entries['1/mercadolibre'] } }));
      expect(await store.migrateFormer(1, 'meli')).toBe(true);
      expect(Object.keys(stored().entries)).toEqual(['1/meli']);
      expect((await store.get(1, 'meli'))?.credentials.accessToken).toBe('APP_USR-new');
    });
  });

  it('keeps every change made at the same time, leaving no temporary file', async () => {
    const store = new LocalMarketplaceCredentials(dir);
    await Promise.all([1, 2, 3, 4, 5].map((account) => store.put(account, shopify)));
    for (const account of [1, 2, 3, 4, 5]) expect(await store.get(account, 'shopify')).toEqual(shopify);
    expect(readdirSync(dir).sort()).toEqual(['marketplace-credentials.json', 'marketplace-credentials.key']);
  });
});
