import * as v from 'valibot';
import { financialStatuses, fulfillmentStatuses, orderChannels, orderStatuses, shipmentStatuses } from '#core/orders/model';
import { canonicalChannel, formerCodesOf, syncChannels } from '#core/orders/marketplace';
import { safeIdentifier } from '#core/identifier';
import { identifier, intQuery, text } from '../kit/schemas';

const oneOf = <T extends readonly string[]>(values: T) => v.picklist(values, `Must be one of ${values.join(', ')}.`);

/**
 * A channel code of `values`, wherever a channel comes in (the list filter, sync's `channels`, the
 * marketplace path): a former code (`mercadolibre`) is accepted as an alias and becomes the
 * current one (`meli`) here, so nothing past validation sees a former code. The one place input
 * channel codes are normalized.
 */
export const channelCode = <T extends readonly string[]>(values: T) => {
  const aliases = values.flatMap((c) => formerCodesOf(c));
  const note = aliases.length ? ` (${aliases.map((a) => `${a} is accepted for ${canonicalChannel(a)}`).join('; ')})` : '';
  return v.pipe(
    v.picklist([...values, ...aliases], `Must be one of ${values.join(', ')}${note}.`),
    v.transform((code) => canonicalChannel(code) as T[number]),
  );
};

/** An ISO 8601 date or date-time (`2026-01-31`, `2026-01-31T12:00:00Z`, with an offset). */
export const IsoDateTime = v.pipe(
  v.string('Must be an ISO 8601 date-time.'),
  v.regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/, 'Must be an ISO 8601 date-time.'),
  v.check((s) => !Number.isNaN(Date.parse(s)), 'Must be a real date.'),
  v.transform((s) => new Date(s).toISOString()),
);

/** An amount of money: finite, non-negative, at most 2 decimals. */
const money = v.pipe(
  v.number('Must be a number.'),
  v.finite('Must be a finite number.'),
  v.minValue(0, 'Must not be negative.'),
  v.maxValue(1e10, 'Is too large.'),
  v.check((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6, 'Must have at most 2 decimals.'),
);
const positive = (max: number) => v.pipe(v.number('Must be a number.'), v.finite('Must be a finite number.'), v.gtValue(0, 'Must be greater than 0.'), v.maxValue(max, `Must be at most ${max}.`));
const quantity = v.pipe(v.number('Must be a number.'), v.integer('Must be a whole number.'), v.minValue(1, 'Must be at least 1.'), v.maxValue(100_000, 'Must be at most 100000.'));
const itemId = v.pipe(v.number('Must be a number.'), v.integer('Must be a whole number.'), v.minValue(1, 'Must be at least 1.'));

export const AddressBody = v.object({
  name: text(200),
  address1: text(300),
  address2: v.optional(v.nullable(v.pipe(v.string('Must be a string.'), v.trim(), v.maxLength(300, 'Must be at most 300 characters.')))),
  city: text(120),
  state: text(120),
  postal_code: text(20),
  country: v.pipe(v.string('Must be a string.'), v.trim(), v.regex(/^[A-Za-z]{2}$/, 'Must be a 2-letter ISO country code.'), v.toUpperCase()),
  phone: v.optional(v.nullable(text(40))),
});

export const ListOrdersQuery = v.object({
  page: v.optional(intQuery(1, 1_000_000), '1'),
  per_page: v.optional(intQuery(1, 100), '20'),
  status: v.optional(oneOf(orderStatuses)),
  fulfillment_status: v.optional(oneOf(fulfillmentStatuses)),
  channel: v.optional(channelCode(orderChannels)),
  date_from: v.optional(IsoDateTime),
  date_to: v.optional(IsoDateTime),
  search: v.optional(text(200)),
});

export const CreateOrderBody = v.object({
  order_number: v.optional(v.pipe(text(50), v.regex(/^[A-Za-z0-9#._-]+$/, 'Use letters, digits and # . _ - only.'))),
  customer: v.object({
    name: text(200),
    email: v.pipe(v.string('Must be a string.'), v.trim(), v.email('Must be an e-mail address.'), v.maxLength(254, 'Must be at most 254 characters.')),
    phone: v.optional(v.nullable(text(40))),
  }),
  shipping_address: AddressBody,
  billing_address: v.optional(v.nullable(AddressBody)),
  items: v.pipe(
    v.array(
      v.object({
        sku: v.pipe(identifier(100), v.regex(/^[^\s#]+$/, 'Must not contain spaces or #.')),
        name: text(300),
        quantity,
        price: money,
        weight: v.optional(v.nullable(v.pipe(v.number('Must be a number.'), v.finite(), v.minValue(0, 'Must not be negative.'), v.maxValue(10_000, 'Must be at most 10000.')))),
      }),
      'Must be an array of items.',
    ),
    v.minLength(1, 'At least one item is required.'),
    v.maxLength(500, 'At most 500 items.'),
  ),
  currency: v.pipe(v.string('Must be a string.'), v.regex(/^[A-Za-z]{3}$/, 'Must be a 3-letter ISO currency code.'), v.toUpperCase()),
  shipping: v.optional(money),
  tax: v.optional(money),
  discount: v.optional(money),
  notes: v.optional(v.nullable(v.pipe(v.string('Must be a string.'), v.maxLength(5000, 'Must be at most 5000 characters.')))),
  financial_status: v.optional(oneOf(financialStatuses)),
});

export const UpdateOrderBody = v.pipe(
  v.object({
    status: v.optional(oneOf(orderStatuses)),
    notes: v.optional(v.nullable(v.pipe(v.string('Must be a string.'), v.maxLength(5000, 'Must be at most 5000 characters.')))),
    shipping_address: v.optional(AddressBody),
  }),
  v.check((b) => b.status !== undefined || b.notes !== undefined || b.shipping_address !== undefined, 'Send at least one of status, notes, shipping_address.'),
);

const lines = v.pipe(v.array(v.object({ order_item_id: itemId, quantity }), 'Must be an array.'), v.maxLength(500, 'At most 500 lines.'));

export const ShipBody = v.object({
  carrier: v.pipe(v.string('Must be a string.'), v.regex(/^[a-z0-9_-]{2,40}$/, 'Must be a lower-case carrier name.')),
  service: text(40),
  packages: v.pipe(
    v.array(
      v.object({
        weight: positive(1000),
        length: positive(500),
        width: positive(500),
        height: positive(500),
        items: v.pipe(lines, v.minLength(1, 'Each package carries at least one item.')),
      }),
      'Must be an array of packages.',
    ),
    v.minLength(1, 'At least one package is required.'),
    v.maxLength(50, 'At most 50 packages.'),
  ),
  warehouse_id: v.optional(v.pipe(v.number('Must be a number.'), v.integer('Must be a whole number.'), v.minValue(1, 'Must be at least 1.'))),
  notify_customer: v.optional(v.boolean('Must be true or false.')),
});

export const FulfillBody = v.object({
  tracking_number: v.pipe(text(64), v.regex(/^[A-Za-z0-9-]+$/, 'Use letters, digits and - only.')),
  carrier: v.pipe(v.string('Must be a string.'), v.regex(/^[a-z0-9_-]{2,40}$/, 'Must be a lower-case carrier name.')),
  items: v.optional(v.pipe(lines, v.minLength(1, 'Name at least one item, or leave items out to fulfill everything left.'))),
  notify_customer: v.optional(v.boolean('Must be true or false.')),
});

export const CancelBody = v.object({
  reason: v.optional(text(1000)),
  notify_customer: v.optional(v.boolean('Must be true or false.')),
});

export const SyncBody = v.object({
  channels: v.optional(v.pipe(v.array(channelCode(syncChannels), 'Must be an array of channel codes.'), v.maxLength(3, 'At most 3 channels.'))),
  since: v.optional(IsoDateTime),
});

export const MarketplaceParams = v.object({ channel: channelCode(syncChannels) });

export const ConnectBody = v.object({
  base_url: v.optional(v.pipe(v.string('Must be a string.'), v.url('Must be a URL.'), v.regex(/^https?:\/\//, 'Must be an http(s) URL.'), v.maxLength(500, 'Must be at most 500 characters.'))),
  credentials: v.pipe(
    v.record(v.pipe(v.string(), v.regex(/^[A-Za-z][A-Za-z0-9_]{0,40}$/, 'Credential names are identifiers.')), v.pipe(v.string('Must be a string.'), v.nonEmpty('Must not be empty.'), v.maxLength(4096, 'Must be at most 4096 characters.'))),
    v.check((c) => Object.keys(c).length > 0 && Object.keys(c).length <= 10, 'Send 1 to 10 credential fields.'),
  ),
});

export const TrackingUpdateBody = v.object({
  tracking_number: v.pipe(text(64), v.regex(/^[A-Za-z0-9-]+$/, 'Use letters, digits and - only.')),
  status: oneOf(shipmentStatuses),
  occurred_at: v.optional(IsoDateTime),
});

export const SkuParams = v.object({ sku: v.pipe(v.string(), v.regex(/^[^\s#/]{1,100}$/, 'Must be a SKU.'), safeIdentifier) });

export const StockBody = v.object({
  name: v.optional(text(300)),
  stock: v.pipe(v.number('Must be a number.'), v.integer('Must be a whole number.'), v.minValue(0, 'Must not be negative.'), v.maxValue(1e9, 'Is too large.')),
  threshold: v.pipe(v.number('Must be a number.'), v.integer('Must be a whole number.'), v.minValue(0, 'Must not be negative.'), v.maxValue(1e9, 'Is too large.')),
  warehouse_id: v.pipe(v.number('Must be a number.'), v.integer('Must be a whole number.'), v.minValue(1, 'Must be at least 1.')),
});

export const WarehouseParams = v.object({ id: v.pipe(v.string(), v.regex(/^[1-9]\d{0,5}$/), v.transform(Number)) });

export const WarehouseBody = v.object({
  name: text(200),
  address1: text(300),
  city: text(120),
  state: text(120),
  postal_code: text(20),
  country: v.pipe(v.string('Must be a string.'), v.trim(), v.regex(/^[A-Za-z]{2}$/, 'Must be a 2-letter ISO country code.'), v.toUpperCase()),
  /** The carriers (FedEx, UPS, DHL, USPS) print and call it: their APIs require a shipper phone. */
  phone: v.optional(v.pipe(v.string('Must be a string.'), v.trim(), v.regex(/^\+?[0-9 ()-]{6,25}$/, 'Must be a phone number: digits, spaces, ( ) - and an optional leading +.'))),
});
