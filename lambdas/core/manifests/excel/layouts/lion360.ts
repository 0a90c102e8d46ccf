import type { ExcelLayout } from '../layout';

/** 360Lion: English headers on the first row, weights in grams, parcels grouped by bag. */
export const lion360: ExcelLayout = {
  slug: '360lion',
  partner: '360Lion Express',
  columns: [
    { headers: ['Bag No.'], field: 'boxNumber' },
    { headers: ['HAWB No.'], field: 'awbNumber' },
    { headers: ['Tracking No.'], field: 'trackingNumber' },
    { headers: ['Sender'], field: 'shipperName' },
    { headers: ['Sender E-mail'], field: 'shipperEmail' },
    { headers: ['Consignee'], field: 'consigneeName' },
    { headers: ['ID Type'], field: 'consigneeIdType', as: 'upper' },
    { headers: ['Consignee ID'], field: 'consigneeIdNumber' },
    { headers: ['Address'], field: 'consigneeAddress' },
    { headers: ['City'], field: 'consigneeCity' },
    { headers: ['State/Province'], field: 'consigneeProvince' },
    { headers: ['Postcode'], field: 'consigneePostalCode' },
    { headers: ['Tel'], field: 'consigneePhoneNumber' },
    { headers: ['E-mail'], field: 'consigneeEmail' },
    { headers: ['Goods Description'], field: 'itemDescription' },
    { headers: ['Category'], field: 'Category' },
    { headers: ['Pcs'], field: 'amountOfPackages' },
    { headers: ['Weight (g)'], field: 'totalWeightKg', as: 'grams' },
    { headers: ['Vol. Weight (g)'], field: 'totalVolumetricWeightKg', as: 'grams' },
    { headers: ['Declared Value (USD)'], field: 'fobValueUsd' },
    { headers: ['Country of Origin'], field: 'originCountry' },
    { headers: ['Image URL'], field: 'imageLink' },
  ],
  required: [['awbNumber', 'trackingNumber'], ['consigneeName'], ['originCountry']],
};
