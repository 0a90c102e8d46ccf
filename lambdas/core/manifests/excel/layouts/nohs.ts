import type { ExcelLayout } from '../layout';

/**
 * NOHS: short English headers and no tariff code column at all; the tariff stage classifies
 * each item from its description, so the description column is required.
 */
export const nohs: ExcelLayout = {
  slug: 'nohs',
  partner: 'NOHS',
  columns: [
    { headers: ['AWB'], field: 'awbNumber' },
    { headers: ['Store'], field: 'customerName' },
    { headers: ['Name'], field: 'consigneeName' },
    { headers: ['Document Type'], field: 'consigneeIdType', as: 'upper' },
    { headers: ['Document'], field: 'consigneeIdNumber' },
    { headers: ['Street'], field: 'consigneeAddress' },
    { headers: ['City'], field: 'consigneeCity' },
    { headers: ['State'], field: 'consigneeProvince' },
    { headers: ['ZIP'], field: 'consigneePostalCode' },
    { headers: ['Phone'], field: 'consigneePhoneNumber' },
    { headers: ['Email'], field: 'consigneeEmail' },
    { headers: ['Item'], field: 'itemName' },
    { headers: ['Description'], field: 'itemDescription' },
    { headers: ['Category'], field: 'Category' },
    { headers: ['Link'], field: 'productLink' },
    { headers: ['Image'], field: 'imageLink' },
    { headers: ['Items'], field: 'amountOfItems' },
    { headers: ['Packages'], field: 'amountOfPackages' },
    { headers: ['Value USD'], field: 'fobValueUsd' },
    { headers: ['Weight KG'], field: 'totalWeightKg' },
    { headers: ['Origin Country'], field: 'originCountry' },
  ],
  required: [['awbNumber'], ['consigneeName'], ['itemDescription'], ['originCountry']],
};
