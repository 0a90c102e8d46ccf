import type { ExcelLayout } from '../layout';

/**
 * Mailamericas: headers in English or in Spanish (both accepted), the recipient's first and last
 * name in two columns, one row per tracking number.
 */
export const mailamericas: ExcelLayout = {
  slug: 'mailamericas',
  partner: 'Mailamericas',
  columns: [
    { headers: ['Tracking', 'Nro. Tracking'], field: 'trackingNumber' },
    { headers: ['Reference', 'Referencia'], field: 'itemIdempotencyKey' },
    { headers: ['Bag', 'Saca'], field: 'boxNumber' },
    { headers: ['Recipient First Name', 'Nombre'], part: 'firstName' },
    { headers: ['Recipient Last Name', 'Apellido'], part: 'lastName' },
    { headers: ['Tax ID Type', 'Tipo de Identificación'], field: 'consigneeIdType', as: 'upper' },
    { headers: ['Tax ID', 'Identificación'], field: 'consigneeIdNumber' },
    { headers: ['Address Line 1', 'Dirección'], field: 'consigneeAddress' },
    { headers: ['City', 'Ciudad'], field: 'consigneeCity' },
    { headers: ['State', 'Provincia'], field: 'consigneeProvince' },
    { headers: ['Zip Code', 'Código Postal'], field: 'consigneePostalCode' },
    { headers: ['Phone', 'Teléfono'], field: 'consigneePhoneNumber' },
    { headers: ['Email', 'Correo'], field: 'consigneeEmail' },
    { headers: ['Content', 'Contenido'], field: 'itemDescription' },
    { headers: ['HS Code', 'Posición Arancelaria'], field: 'hsCode' },
    { headers: ['Quantity', 'Cantidad'], field: 'amountOfItems' },
    { headers: ['Declared Value USD', 'Valor Declarado USD'], field: 'fobValueUsd' },
    { headers: ['Weight KG', 'Peso KG'], field: 'totalWeightKg' },
    { headers: ['Origin', 'Origen'], field: 'originCountry' },
    { headers: ['Sender', 'Remitente'], field: 'shipperName' },
    { headers: ['Sender Email', 'Correo Remitente'], field: 'shipperEmail' },
  ],
  combine: [{ field: 'consigneeName', op: 'join', parts: ['firstName', 'lastName'] }],
  required: [['trackingNumber'], ['firstName'], ['originCountry']],
};
