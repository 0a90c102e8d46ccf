import { trackingNumberFor } from '#core/shipping/carrier';
import type { LabelInput } from '#infra/label-pdf';

/** A two-package shipment to a recipient whose name and address need WinAnsi's Spanish letters. */
export const sampleLabel: LabelInput = {
  trackingNumber: trackingNumberFor(42),
  carrier: 'despacho',
  service: 'express',
  orderNumber: '#1001',
  shipmentId: 42,
  createdAt: '2026-03-14T15:00:00Z',
  sender: { name: 'Tienda Ñandú S.A.', address1: 'Av. Corrientes 1234', city: 'CABA', state: 'Buenos Aires', postal_code: 'C1043', country: 'AR' },
  recipient: {
    name: 'José María Muñoz Ávila',
    address1: 'Calle Güemes 567, Piso 3º B',
    address2: 'Barrio Parque Señorial',
    city: 'San Carlos de Bariloche',
    state: 'Río Negro',
    postal_code: 'R8400',
    country: 'AR',
    phone: '+54 9 294 555-1234',
  },
  packages: [
    { weight: 1.25, length: 30, width: 20, height: 10 },
    { weight: 0.5, length: 15.5, width: 10, height: 5 },
  ],
};
