/** The order's answers: list form and detail form of spec 2.1, shipments of 2.2. */
import type { Address, OrderRecord, ShipmentRecord } from './model';

const address = (a: Address) => ({ name: a.name, address1: a.address1, city: a.city, state: a.state, postal_code: a.postal_code, country: a.country });
const fullAddress = (a: Address) => ({ ...address(a), address2: a.address2 ?? null, phone: a.phone ?? null });

/** How every answer and event about an order begins: its ids, its channel and its status. */
export function orderHead(o: { id: number; orderNumber: string; channel: string; channelOrderId: string | null; status: string }) {
  return { id: o.id, order_number: o.orderNumber, channel: o.channel, channel_order_id: o.channelOrderId, status: o.status };
}

/**
 * The items an order's list form shows: its first ones, so a page of 100 orders of 500 items
 * each stays far below the 6 MB an answer may hold; `item_count` says how many it has, and the
 * detail form lists them all.
 */
export const listedItems = 20;

export function orderListView(o: OrderRecord) {
  return {
    ...orderHead(o),
    fulfillment_status: o.fulfillmentStatus,
    financial_status: o.financialStatus,
    customer: { name: o.customer.name, email: o.customer.email },
    shipping_address: address(o.shippingAddress),
    items: o.items.slice(0, listedItems).map((i) => ({ id: i.id, sku: i.sku, name: i.name, quantity: i.quantity, price: i.price, currency: o.currency })),
    item_count: o.items.length,
    totals: { subtotal: o.totals.subtotal, shipping: o.totals.shipping, tax: o.totals.tax, total: o.totals.total, currency: o.currency },
    created_at: o.createdAt,
  };
}

export function orderDetailView(o: OrderRecord) {
  const list = orderListView(o);
  return {
    ...list,
    customer: { ...list.customer, phone: o.customer.phone },
    shipping_address: fullAddress(o.shippingAddress),
    billing_address: o.billingAddress ? fullAddress(o.billingAddress) : null,
    items: o.items.map((i) => ({
      id: i.id,
      product_id: i.productId,
      sku: i.sku,
      name: i.name,
      quantity: i.quantity,
      quantity_fulfilled: i.quantityFulfilled,
      price: i.price,
      weight: i.weight,
      currency: o.currency,
    })),
    totals: { ...list.totals, discount: o.totals.discount },
    shipments: o.shipments.map(shipmentView),
    timeline: o.timeline.map((t) => ({ event: t.event, timestamp: t.timestamp, description: t.description })),
    notes: o.notes,
    cancelled_at: o.cancelledAt,
    updated_at: o.updatedAt,
  };
}

export function shipmentView(s: ShipmentRecord) {
  return {
    id: s.id,
    tracking_number: s.trackingNumber,
    carrier: s.carrier,
    service: s.service,
    status: s.status,
    items: s.items.map((i) => ({ order_item_id: i.orderItemId, sku: i.sku, quantity: i.quantity })),
    label_url: s.labelUrl,
    estimated_delivery: s.estimatedDelivery,
    delivered_at: s.deliveredAt,
    created_at: s.createdAt,
    // External carriers (issue 18): what the label cost, and when it was voided.
    ...(s.cost ? { shipping_cost: s.cost } : {}),
    ...(s.voidedAt ? { voided_at: s.voidedAt } : {}),
  };
}

/** The brief order summary the dashboard envelope of order events carries (spec 6.3). */
export function orderSummary(o: OrderRecord) {
  return {
    id: o.id,
    order_number: o.orderNumber,
    channel: o.channel,
    status: o.status,
    totals: { subtotal: o.totals.subtotal, shipping: o.totals.shipping, tax: o.totals.tax, total: o.totals.total, currency: o.currency },
  };
}
