import type { MarketplaceConnector, SyncChannel } from '#core/orders/marketplace';
import { amazon } from './amazon';
import { mercadolibre } from './mercadolibre';
import { shopify } from './shopify';

export { MarketplaceError, type MarketplaceErrorCode } from './http';

export const connectors: Record<SyncChannel, MarketplaceConnector> = { amazon, meli: mercadolibre, shopify };

export function connectorFor(channel: SyncChannel): MarketplaceConnector {
  const connector = connectors[channel];
  if (!connector) throw new Error(`No marketplace connector for ${JSON.stringify(channel)}`);
  return connector;
}

/**
 * Where each marketplace's public API answers. Shopify's is each shop's own host; Amazon's is
 * per region (North America by default; Europe and Far East are the `-eu` and `-fe` hosts).
 */
export const apiHosts: Record<SyncChannel, RegExp> = {
  shopify: /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/,
  meli: /^api\.mercadolibre\.com$/,
  amazon: /^(sandbox\.)?sellingpartnerapi-(na|eu|fe)\.amazon\.com$/,
};

const publicBaseUrls: Partial<Record<SyncChannel, string>> = {
  meli: 'https://api.mercadolibre.com',
  amazon: 'https://sellingpartnerapi-na.amazon.com',
};

/**
 * The public API's base URL for a new connection; for Shopify it is built from `credentials.shop`
 * (`acme`, `acme.myshopify.com` or `https://acme.myshopify.com`), undefined without it.
 */
export function defaultBaseUrl(channel: SyncChannel, credentials: Record<string, string> = {}): string | undefined {
  if (channel !== 'shopify') return publicBaseUrls[channel];
  const shop = (credentials.shop ?? '').trim().toLowerCase().replace(/^https:\/\//, '').replace(/\/+$/, '').replace(/\.myshopify\.com$/, '');
  return /^[a-z0-9][a-z0-9-]*$/.test(shop) ? `https://${shop}.myshopify.com` : undefined;
}

/**
 * A base URL an account gave, checked before it is stored: the connectors send the account's
 * credentials there, so in AWS it must be https on the marketplace's own API host (`apiHosts`).
 * `anyHost` (the twin and tests, whose fake marketplaces listen on localhost) lifts both rules.
 * Answers the URL without trailing slash, query or fragment, or what is wrong with it.
 */
export function checkBaseUrl(channel: SyncChannel, value: string, opts: { anyHost?: boolean } = {}): { baseUrl: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: 'is not a URL' };
  }
  if (url.username || url.password) return { problem: 'must not carry credentials' };
  if (!opts.anyHost) {
    if (url.protocol !== 'https:') return { problem: 'must use https' };
    if (url.port || !apiHosts[channel].test(url.hostname)) return { problem: `is not a ${channel} API host` };
  } else if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { problem: 'must use http or https' };
  }
  return { baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}
