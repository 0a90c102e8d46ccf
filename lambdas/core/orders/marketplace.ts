/**
 * What a marketplace connector hands the order sync: the marketplace's orders mapped onto the
 * service's own fields. Each connector (lambdas/infra/marketplaces/<channel>.ts) speaks its
 * platform's public API and maps its records to `MarketplaceOrder`; the sync upserts them by
 * (channel, channelOrderId), so a re-sync never duplicates.
 */
export const syncChannels = ['amazon', 'meli', 'shopify'] as const;
export type SyncChannel = (typeof syncChannels)[number];

/**
 * Former channel codes, still accepted on input and still found in data stored before the
 * rename: former -> current. Mercado Libre was `mercadolibre` until issue 17 made it `meli`, the
 * code of the seed system's public pages. The service answers only current codes.
 */
export const channelAliases = { mercadolibre: 'meli' } as const satisfies Record<string, SyncChannel>;
export type FormerChannel = keyof typeof channelAliases;
export const formerChannels = Object.keys(channelAliases) as FormerChannel[];

/** The current code of a channel code, former or current (anything else is returned as is). */
export function canonicalChannel<T extends string>(code: T): T extends FormerChannel ? (typeof channelAliases)[T] : T;
export function canonicalChannel(code: string): string {
  return Object.hasOwn(channelAliases, code) ? channelAliases[code as FormerChannel] : code;
}

/** Whether a stored channel code is a former one (read as its current code). */
export const isFormerChannel = (code: string): code is FormerChannel => Object.hasOwn(channelAliases, code);

/** The former codes that meant `channel` (`meli` -> [`mercadolibre`]); data stored under them is still `channel`'s. */
export function formerCodesOf(channel: string): FormerChannel[] {
  return formerChannels.filter((f) => channelAliases[f] === channel);
}

export type OrderStatus = 'pending' | 'processing' | 'shipped' | 'delivered' | 'cancelled';
export type FulfillmentStatus = 'unfulfilled' | 'partial' | 'fulfilled';

export interface Address {
  name: string;
  address1: string;
  address2?: string | null;
  city: string;
  state: string;
  postal_code: string;
  country: string;
  phone?: string | null;
}

export interface MarketplaceOrderItem {
  /** The line's id in the marketplace (line item id, order item id). */
  channelItemId: string;
  sku: string;
  name: string;
  quantity: number;
  /** Unit price in `currency`. */
  price: number;
  /** Kilograms per unit when the marketplace says; else null. */
  weight: number | null;
}

export interface MarketplaceOrder {
  channelOrderId: string;
  /** The number the merchant sees in the marketplace (Shopify `#1001`, ML and Amazon ids). */
  orderNumber: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  updatedAt: string;
  /** The marketplace's state mapped onto the service's order status. */
  status: OrderStatus;
  /** `paid`, `pending`, `refunded`, ... as the marketplace says, lower-cased; null when unknown. */
  financialStatus: string | null;
  customer: { name: string; email: string; phone: string | null };
  shippingAddress: Address;
  billingAddress: Address | null;
  items: MarketplaceOrderItem[];
  currency: string;
  totals: { subtotal: number; shipping: number; tax: number; discount: number; total: number };
}

/** A record the marketplace sent that could not be mapped (missing id, bad amounts, ...). */
export interface RejectedRecord {
  channelOrderId: string | null;
  reason: string;
}

export interface MarketplacePage {
  orders: MarketplaceOrder[];
  rejected: RejectedRecord[];
}

/** An account's connection to one marketplace: where its API is and the account's credentials. */
export interface MarketplaceConnection {
  channel: SyncChannel;
  /** The API's base URL (configurable: the public one in production, a fake server in tests). */
  baseUrl: string;
  /**
   * shopify: { accessToken } (X-Shopify-Access-Token);
   * meli: { accessToken, sellerId };
   * amazon: { accessToken, marketplaceId } (LWA access token sent as x-amz-access-token).
   */
  credentials: Record<string, string>;
}

export interface FetchOptions {
  /** Only orders created after this instant (ISO 8601). */
  since?: string;
  /**
   * Only orders whose last update (any change: status, fulfillment, cancellation) is after this
   * instant (ISO 8601). With `since` too, both hold. Without either, the connector's default window.
   */
  updatedSince?: string;
  /** Aborts the fetch (the sync's time budget). */
  signal?: AbortSignal;
}

export interface MarketplaceConnector {
  channel: SyncChannel;
  /**
   * The credential fields a connection holds: `required`, every one read by its requests, and
   * `optional`, read only while connecting (Shopify's `shop`, for the base URL). A connection is
   * refused at connect (422) when one is missing or a field is neither, instead of at its first sync.
   */
  credentials: { required: readonly string[]; optional?: readonly string[] };
  /** The marketplace's orders, page by page, following its own pagination to the end. */
  fetchOrders(connection: MarketplaceConnection, options: FetchOptions): AsyncIterable<MarketplacePage>;
}

/**
 * What is wrong with credentials for `connector` (messages for the `credentials` field), or an
 * empty list: every required field present, no field the connector does not read.
 */
export function credentialProblems(connector: Pick<MarketplaceConnector, 'channel' | 'credentials'>, credentials: Readonly<Record<string, string>>): string[] {
  const { required, optional = [] } = connector.credentials;
  const known = [...required, ...optional];
  const takes = `${connector.channel} takes ${known.join(', ')}`;
  const problems = required.filter((name) => !credentials[name]?.trim()).map((name) => `Missing ${name}: ${takes}.`);
  for (const name of Object.keys(credentials)) if (!known.includes(name)) problems.push(`Unknown field ${name}: ${takes}.`);
  return problems;
}
