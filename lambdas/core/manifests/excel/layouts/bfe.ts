import type { ExcelLayout } from '../layout';

/** BFE: Spanish headers on the first row, one row per house air waybill, values already in USD and kg. */
export const bfe: ExcelLayout = {
  slug: 'bfe',
  partner: 'BFE',
  columns: [
    { headers: ['Guía Hija', 'HAWB'], field: 'awbNumber' },
    { headers: ['Guía Courier', 'Tracking'], field: 'trackingNumber' },
    { headers: ['Remitente'], field: 'shipperName' },
    { headers: ['Destinatario'], field: 'consigneeName' },
    { headers: ['Tipo Doc.', 'Tipo Documento'], field: 'consigneeIdType', as: 'upper' },
    { headers: ['Nro. Doc.', 'CUIT/CUIL/DNI'], field: 'consigneeIdNumber' },
    { headers: ['Domicilio'], field: 'consigneeAddress' },
    { headers: ['Localidad'], field: 'consigneeCity' },
    { headers: ['Provincia'], field: 'consigneeProvince' },
    { headers: ['CP', 'Código Postal'], field: 'consigneePostalCode' },
    { headers: ['Teléfono'], field: 'consigneePhoneNumber' },
    { headers: ['Email', 'Correo'], field: 'consigneeEmail' },
    { headers: ['Descripción'], field: 'itemDescription' },
    { headers: ['Posición Arancelaria'], field: 'hsCode' },
    { headers: ['Cant. Bultos'], field: 'amountOfPackages' },
    { headers: ['Cant. Unidades'], field: 'amountOfItems' },
    { headers: ['Peso Kg'], field: 'totalWeightKg' },
    { headers: ['Valor FOB USD'], field: 'fobValueUsd' },
    { headers: ['País Origen'], field: 'originCountry' },
  ],
  required: [['awbNumber'], ['consigneeName'], ['originCountry']],
};
