import { describe, expect, it } from 'vitest';
import { syncChannels, type SyncChannel } from '#core/orders/marketplace';
import { checkBaseUrl, connectorFor, defaultBaseUrl } from '#infra/marketplaces/index';

describe('the marketplace connector registry', () => {
  it('has a connector for every sync channel', () => {
    for (const channel of syncChannels) expect(connectorFor(channel).channel).toBe(channel);
  });

  it('refuses a channel it does not know', () => {
    expect(() => connectorFor('ebay' as SyncChannel)).toThrow('No marketplace connector for "ebay"');
  });

  it('knows the public API of Mercado Libre and Amazon', () => {
    expect(defaultBaseUrl('meli')).toBe('https://api.mercadolibre.com');
    expect(defaultBaseUrl('amazon')).toBe('https://sellingpartnerapi-na.amazon.com');
  });

  it("builds Shopify's from the shop, however it is written, and has none without one", () => {
    for (const shop of ['acme-store', 'ACME-store.myshopify.com', 'https://acme-store.myshopify.com/']) {
      expect(defaultBaseUrl('shopify', { shop })).toBe('https://acme-store.myshopify.com');
    }
    expect(defaultBaseUrl('shopify')).toBeUndefined();
    expect(defaultBaseUrl('shopify', { shop: 'evil.com/x?' })).toBeUndefined();
  });

  it('accepts only https on the marketplace API host for a stored base URL', () => {
    expect(checkBaseUrl('shopify', 'https://acme.myshopify.com/')).toEqual({ baseUrl: 'https://acme.myshopify.com' });
    expect(checkBaseUrl('amazon', 'https://sellingpartnerapi-eu.amazon.com')).toEqual({ baseUrl: 'https://sellingpartnerapi-eu.amazon.com' });
    expect(checkBaseUrl('shopify', 'http://acme.myshopify.com')).toEqual({ problem: 'must use https' });
    expect(checkBaseUrl('meli', 'https://169.254.169.254/latest')).toEqual({ problem: 'is not a meli API host' });
    expect(checkBaseUrl('shopify', 'https://acme.myshopify.com.evil.com')).toEqual({ problem: 'is not a shopify API host' });
    expect(checkBaseUrl('amazon', 'https://user:pw@sellingpartnerapi-na.amazon.com')).toEqual({ problem: 'must not carry credentials' });
    expect(checkBaseUrl('amazon', 'not a url')).toEqual({ problem: 'is not a URL' });
  });

  it('lets the twin and the tests point a connection at a local fake', () => {
    expect(checkBaseUrl('shopify', 'http://127.0.0.1:4010/', { anyHost: true })).toEqual({ baseUrl: 'http://127.0.0.1:4010' });
    expect(checkBaseUrl('shopify', 'file:///etc/passwd', { anyHost: true })).toEqual({ problem: 'must use http or https' });
  });
});
