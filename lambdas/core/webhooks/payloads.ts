/**
 * The `data` of the events whose shape spec 6.3 fixes. The areas that emit them (orders,
 * shipments, inventory) build their payloads here, so every emitter sends exactly these fields.
 */
import { orderHead } from '../orders/views';

export interface Money {
  subtotal: number;
  shipping: number;
  total: number;
  currency: string;
}

export function orderCreatedPayload(o: {
  id: number;
  orderNumber: string;
  channel: string;
  channelOrderId: string | null;
  status: string;
  customer: { name: string; email: string };
  items: { id: number; sku: string; name: string; quantity: number; price: number; currency: string }[];
  totals: Money;
  createdAt: string;
}) {
  return {
    ...orderHead(o),
    customer: { name: o.customer.name, email: o.customer.email },
    items: o.items.map((i) => ({ id: i.id, sku: i.sku, name: i.name, quantity: i.quantity, price: i.price, currency: i.currency })),
    totals: { subtotal: o.totals.subtotal, shipping: o.totals.shipping, total: o.totals.total, currency: o.totals.currency },
    created_at: o.createdAt,
  };
}

export function shipmentCreatedPayload(s: {
  shipmentId: number;
  orderId: number;
  carrier: string;
  service: string;
  trackingNumber: string;
  labelUrl: string;
  estimatedDelivery: string | null;
  createdAt: string;
}) {
  return {
    shipment_id: s.shipmentId,
    order_id: s.orderId,
    carrier: s.carrier,
    service: s.service,
    tracking_number: s.trackingNumber,
    label_url: s.labelUrl,
    estimated_delivery: s.estimatedDelivery,
    created_at: s.createdAt,
  };
}

export function lowStockPayload(p: {
  productId: number;
  sku: string;
  name: string;
  currentStock: number;
  threshold: number;
  warehouseId: number;
  warehouseName: string;
}) {
  return {
    product_id: p.productId,
    sku: p.sku,
    name: p.name,
    current_stock: p.currentStock,
    threshold: p.threshold,
    warehouse_id: p.warehouseId,
    warehouse_name: p.warehouseName,
  };
}
