import type { ExcelLayout } from '../layout';

/**
 * GoLucky Express: English headers under a company title and a date line, one row per product
 * line; the declared value is a unit price times the quantity.
 */
export const golucky: ExcelLayout = {
  slug: 'golucky',
  partner: 'GoLucky Express',
  headerSearchRows: 4,
  columns: [
    { headers: ['Waybill No.', 'Waybill Number'], field: 'trackingNumber' },
    { headers: ['Reference No.'], field: 'itemIdempotencyKey' },
    { headers: ['Shipper'], field: 'shipperName' },
    { headers: ['Store Name'], field: 'customerName' },
    { headers: ['Receiver Name'], field: 'consigneeName' },
    { headers: ['Receiver ID No.'], field: 'consigneeIdNumber' },
    { headers: ['Receiver Address'], field: 'consigneeAddress' },
    { headers: ['Receiver City'], field: 'consigneeCity' },
    { headers: ['Receiver Province'], field: 'consigneeProvince' },
    { headers: ['Receiver Zip Code'], field: 'consigneePostalCode' },
    { headers: ['Receiver Tel'], field: 'consigneePhoneNumber' },
    { headers: ['Receiver Email'], field: 'consigneeEmail' },
    { headers: ['Goods Name (EN)'], field: 'itemName' },
    { headers: ['HS Code'], field: 'hsCode' },
    { headers: ['Qty'], field: 'amountOfItems', part: 'quantity' },
    { headers: ['Unit Price (USD)'], part: 'unitPrice', as: 'number' },
    { headers: ['G.W. (kg)', 'Gross Weight (kg)'], field: 'totalWeightKg' },
    { headers: ['Origin'], field: 'originCountry' },
    { headers: ['Product URL'], field: 'productLink' },
  ],
  combine: [{ field: 'fobValueUsd', op: 'multiply', parts: ['unitPrice', 'quantity'] }],
  required: [['trackingNumber'], ['consigneeName'], ['originCountry'], ['unitPrice']],
};
