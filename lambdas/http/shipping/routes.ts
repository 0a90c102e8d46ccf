import type { RouteDef } from '../../catalog-types';
import { IdParams } from '../kit/schemas';
import { TrackingUpdateBody } from '../orders/schemas';
import { CarrierAccountBody, CarrierParams } from './schemas';
import { shippingResponses } from './responses';

/** Shipment labels and carrier tracking updates (spec 2.2): GET needs `orders:read`, every other method `orders:write`. */
export const shippingRoutes: RouteDef[] = [
  {
    id: 'ShipmentLabel',
    method: 'GET',
    path: '/v1/shipping/shipments/{id}/label',
    handler: 'http/shipping/label',
    summary: "A shipment's 4x6 PDF label, to the order's account",
    tag: 'orders',
    responses: shippingResponses.ShipmentLabel,
    auth: { scopes: ['orders:read'] },
    rate: 'orders.read',
    uses: { table: ['GetItem'], bucket: [{ name: 'files', actions: ['GetObject'] }] },
    schemas: { params: IdParams },
  },
  {
    id: 'TrackingUpdates',
    method: 'POST',
    path: '/v1/shipping/tracking-updates',
    handler: 'http/shipping/tracking',
    summary: "A carrier's tracking update by tracking number (delivered -> shipment.delivered)",
    tag: 'orders',
    responses: shippingResponses.TrackingUpdates,
    auth: { scopes: ['orders:write'] },
    rate: 'orders.write',
    uses: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], bus: true },
    schemas: { body: TrackingUpdateBody },
  },
  {
    id: 'CarriersList',
    method: 'GET',
    path: '/v1/shipping/carriers',
    handler: 'http/shipping/carriers',
    summary: "The account's carrier accounts (never their secrets)",
    tag: 'orders',
    responses: shippingResponses.CarriersList,
    auth: { scopes: ['orders:read'] },
    rate: 'orders.read',
    uses: { secrets: 'read' },
  },
  {
    id: 'CarriersConnect',
    method: 'PUT',
    path: '/v1/shipping/carriers/{carrier}',
    handler: 'http/shipping/carriers',
    summary: 'Connect a carrier account (fedex, ups, dhl, usps): its credentials, kept encrypted',
    tag: 'orders',
    responses: shippingResponses.CarriersConnect,
    auth: { scopes: ['orders:write'] },
    rate: 'orders.write',
    uses: { secrets: 'write' },
    schemas: { params: CarrierParams, body: CarrierAccountBody },
  },
  {
    id: 'CarriersDisconnect',
    method: 'DELETE',
    path: '/v1/shipping/carriers/{carrier}',
    handler: 'http/shipping/carriers',
    summary: 'Disconnect a carrier account and delete its credentials',
    tag: 'orders',
    responses: shippingResponses.CarriersDisconnect,
    auth: { scopes: ['orders:write'] },
    rate: 'orders.write',
    uses: { secrets: 'write' },
    schemas: { params: CarrierParams },
  },
];
