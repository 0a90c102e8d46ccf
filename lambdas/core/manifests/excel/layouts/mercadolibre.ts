import type { ExcelLayout } from '../layout';

/**
 * Mercado Libre cross-border sales export: Spanish headers, sometimes under a note row; one row
 * per sale, with the unit price and the units sold in separate columns.
 */
export const mercadolibre: ExcelLayout = {
  slug: 'mercadolibre',
  partner: 'Mercado Libre',
  headerSearchRows: 3,
  columns: [
    { headers: ['# de venta', 'Número de venta'], field: 'itemIdempotencyKey' },
    { headers: ['Número de seguimiento'], field: 'trackingNumber' },
    { headers: ['Guía aérea'], field: 'awbNumber' },
    { headers: ['Título de la publicación'], field: 'itemName' },
    { headers: ['Categoría'], field: 'Category' },
    { headers: ['Link de la publicación'], field: 'productLink' },
    { headers: ['Unidades'], field: 'amountOfItems', part: 'units' },
    { headers: ['Precio unitario (US$)', 'Precio unitario (USD)'], part: 'unitPrice', as: 'number' },
    { headers: ['Peso (kg)'], field: 'totalWeightKg' },
    { headers: ['País de origen'], field: 'originCountry' },
    { headers: ['Vendedor'], field: 'shipperName' },
    { headers: ['Tienda oficial'], field: 'customerName' },
    { headers: ['Comprador'], field: 'consigneeName' },
    { headers: ['Tipo de documento'], field: 'consigneeIdType', as: 'upper' },
    { headers: ['Documento del comprador'], field: 'consigneeIdNumber' },
    { headers: ['Domicilio de entrega'], field: 'consigneeAddress' },
    { headers: ['Ciudad'], field: 'consigneeCity' },
    { headers: ['Provincia'], field: 'consigneeProvince' },
    { headers: ['Código postal'], field: 'consigneePostalCode' },
    { headers: ['Teléfono del comprador'], field: 'consigneePhoneNumber' },
    { headers: ['E-mail del comprador'], field: 'consigneeEmail' },
  ],
  combine: [{ field: 'fobValueUsd', op: 'multiply', parts: ['unitPrice', 'units'] }],
  required: [['trackingNumber', 'awbNumber'], ['consigneeName'], ['originCountry'], ['unitPrice']],
};
