import type { ExcelLayout } from '../layout';

/**
 * N24 Logística: Spanish headers under a title block (company, document name, flight line);
 * tax ids come with hyphens and amounts are often typed as text with a decimal comma.
 */
export const n24: ExcelLayout = {
  slug: 'n24',
  partner: 'N24 Logística',
  headerSearchRows: 6,
  columns: [
    { headers: ['Nro. Envío', 'Número de Envío'], field: 'trackingNumber' },
    { headers: ['Guía Aérea'], field: 'awbNumber' },
    { headers: ['Clave Ítem'], field: 'itemIdempotencyKey' },
    { headers: ['Apellido y Nombre'], field: 'consigneeName' },
    { headers: ['Tipo Doc.'], field: 'consigneeIdType', as: 'upper' },
    { headers: ['CUIT / CUIL / DNI'], field: 'consigneeIdNumber' },
    { headers: ['Calle y Número'], field: 'consigneeAddress' },
    { headers: ['Ciudad'], field: 'consigneeCity' },
    { headers: ['Provincia'], field: 'consigneeProvince' },
    { headers: ['CP'], field: 'consigneePostalCode' },
    { headers: ['Celular'], field: 'consigneePhoneNumber' },
    { headers: ['Correo Electrónico'], field: 'consigneeEmail' },
    { headers: ['Producto'], field: 'itemName' },
    { headers: ['Detalle'], field: 'itemDescription' },
    { headers: ['NCM'], field: 'hsCode' },
    { headers: ['Cantidad'], field: 'amountOfItems' },
    { headers: ['Bultos'], field: 'amountOfPackages' },
    { headers: ['Peso Neto (Kg)'], field: 'totalWeightKg' },
    { headers: ['Peso Volumétrico (Kg)'], field: 'totalVolumetricWeightKg' },
    { headers: ['Importe FOB (U$S)'], field: 'fobValueUsd' },
    { headers: ['Origen'], field: 'originCountry' },
    { headers: ['Remitente'], field: 'shipperName' },
  ],
  required: [['trackingNumber', 'awbNumber'], ['consigneeName'], ['originCountry']],
};
