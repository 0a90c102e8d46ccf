/**
 * A realistic request for every route that takes input, by route id: its path parameters, query
 * and body, as a partner would send them and as the twin accepts them (a manifest of two items, an
 * order, a subscription). openapi.json carries them as the `example` of each parameter and body,
 * so the reference, the Postman collection (scripts/generate-postman.ts) and the mock (`npm run
 * mock`) show data, not placeholders. Ids that must exist (a batch, a document) are the ones a
 * first run makes; the collection fills them from earlier answers instead (scripts/postman-flow.ts).
 * test/integration/system/postman.test.ts sends every one to the twin and expects its 2xx.
 */
export interface RequestExample {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  /** A body that is not JSON (the tariff's CSV), as text. */
  text?: string;
}

/** A one-page PDF (an invoice), base64: the smallest file the document routes accept. */
export const invoicePdfBase64 =
  'JVBERi0xLjQKJeLjz9MKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCjIgMCBvYmoKPDwgL1R5cGUgL1BhZ2VzIC9LaWRzIFszIDAgUl0gL0NvdW50IDEgPj4KZW5kb2JqCjMgMCBvYmoKPDwgL1R5cGUgL1BhZ2UgL1BhcmVudCAyIDAgUiAvTWVkaWFCb3ggWzAgMCAyMDAgMTAwXSAvQ29udGVudHMgNCAwIFIgL1Jlc291cmNlcyA8PCAvRm9udCA8PCAvRjEgNSAwIFIgPj4gPj4gPj4KZW5kb2JqCjQgMCBvYmoKPDwgL0xlbmd0aCA1MSA+PgpzdHJlYW0KQlQgL0YxIDEyIFRmIDEwIDUwIFRkIChGYWN0dXJhIDAwMDEtMDAwMDQ1MjEpIFRqIEVUCmVuZHN0cmVhbQplbmRvYmoKNSAwIG9iago8PCAvVHlwZSAvRm9udCAvU3VidHlwZSAvVHlwZTEgL0Jhc2VGb250IC9IZWx2ZXRpY2EgPj4KZW5kb2JqCnhyZWYKMCA2CjAwMDAwMDAwMDAgNjU1MzUgZiAKMDAwMDAwMDAxNSAwMDAwMCBuIAowMDAwMDAwMDY0IDAwMDAwIG4gCjAwMDAwMDAxMjEgMDAwMDAgbiAKMDAwMDAwMDI0NyAwMDAwMCBuIAowMDAwMDAwMzQ4IDAwMDAwIG4gCnRyYWlsZXIKPDwgL1NpemUgNiAvUm9vdCAxIDAgUiA+PgpzdGFydHhyZWYKNDE4CiUlRU9GCg==';

const address = { name: 'María Pérez', address1: 'Av. Corrientes 1234', city: 'Buenos Aires', state: 'CABA', postal_code: 'C1043', country: 'AR', phone: '+54 11 5555 0000' };
const mawb = '176-12345675';
const manifestItem = (n: number, over: Record<string, unknown>) => ({
  awbNumber: `AWB${String(n).padStart(7, '0')}`,
  itemIdempotencyKey: `line-${n}`,
  originCountry: 'CN',
  consigneeName: over.consigneeName ?? 'María Pérez',
  consigneeAddress: 'Av. Corrientes 1234',
  consigneeCity: 'CABA',
  consigneeProvince: 'Buenos Aires',
  consigneePostalCode: 'C1043',
  consigneeIdType: 'CUIL',
  consigneeIdNumber: '27234567891',
  consigneeEmail: 'maria.perez@example.com',
  itemDescription: 'Cotton t-shirt',
  hsCode: '6109.10.00',
  fobValueUsd: 12.5,
  totalWeightKg: 0.3,
  amountOfItems: 1,
  amountOfPackages: 1,
  ...over,
});

export const requestExamples: Record<string, RequestExample> = {
  ApiDocsScript: { params: { asset: 'redoc.js' } },
  MyTokensRevoke: { params: { id: '2' } },
  AdminAccountsCreate: { body: { name: 'Andes Courier SA', kind: 'partner' } },
  AdminAccountSigningSecret: { params: { id: '1' } },
  AdminAccountTariffConsent: { params: { id: '1' }, body: { share_decisions: true, reference: 'Signed addendum 2026-11' } },
  AdminAccountTariffDecisions: { params: { id: '1' }, query: { per_page: 100 } },
  AdminTokensCreate: { body: { account_id: 1, name: 'Andes integration', email: 'dev@andes.example.com', role: 'partner', scopes: ['manifests:read', 'manifests:write', 'webhooks:read', 'webhooks:write', 'events:read'] } },
  AdminTokensList: { query: { account_id: 1 } },
  AdminTokensRevoke: { params: { id: '3' } },
  AdminTariffImport: { text: 'ncm,description,duty_rate,description_en,keywords\n6109.10.00,Camisetas de algodón,35,Cotton T-shirts,remera;t-shirt\n' },
  AdminMigrateChannelCodes: { body: {} },
  AdminMigrateSigningSecrets: { body: {} },
  AdminMigrateTokenScopes: { body: {} },
  AdminMetrics: { query: { format: 'json' } },
  AdminExchangeRatesPut: { params: { date: '2026-03-13' }, body: { rate: 1370.25, source: 'BNA divisa vendedor, cierre' } },
  AdminExchangeRatesList: { query: { from: '2026-03-01', to: '2026-03-31' } },
  ManifestStorageUpload: { body: { courier_code: 'ANDES', manifest_name: 'MAWB 176-33333332', description: 'Flight LA8071, Miami', file: '(the file: manifiesto.json)' } },
  ManifestStorageUploadUrl: { body: { courier_code: 'ANDES', manifest_name: 'MAWB 176-44444443', file_name: 'manifiesto-2.json', file_size: 428, checksum: 'sha256:f0f1ec2e5b356185b1d96c887d8c12dd051d31d79877bed2a0385945bbed6a57' } },
  ManifestStorageUploadComplete: { params: { uploadId: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f' } },
  ManifestStorageList: { query: { courier_code: 'ANDES', per_page: 20, page: 1 } },
  DocumentsUpload: { body: { document_type: 'awb', manifest_id: mawb, awb_number: 'AWB0000001', filename: 'awb-0000001.pdf', file_base64: invoicePdfBase64 } },
  DocumentsUploadUrl: { body: { document_type: 'customs', manifest_id: mawb, filename: 'awb-0000001.pdf', file_size: 601, checksum: 'sha256:a4c33871c6b1701521c8c821db2f319a2ead0e29946011ed59f6acb788663631' } },
  DocumentsUploadComplete: { params: { uploadId: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f' } },
  DocumentsList: { query: { manifest_id: mawb, per_page: 20, page: 1 } },
  DocumentsShow: { params: { id: '1' } },
  DocumentsDelete: { params: { id: '2' } },
  DeliveriesRecord: {
    body: {
      awb_number: 'AWB0000001',
      delivered_at: '2026-12-06T15:30:00-03:00',
      recipient_name: 'María Pérez',
      recipient_dni: '27234567',
      recipient_relation: 'titular',
      latitude: -34.6037,
      longitude: -58.3816,
      file_base64: invoicePdfBase64,
      file_name: 'constancia-AWB0000001.pdf',
    },
  },
  DeliveriesList: { query: { mawb_number: mawb, per_page: 25 } },
  // clients/postman/files/entregas-2026-12-06.csv and .zip: two AWBs of the manifest, their signed PDFs.
  DeliveriesBulkUploadUrl: {
    body: {
      csv: { filename: 'entregas-2026-12-06.csv', file_size: 333, checksum: 'sha256:9fc7a63fdd61e2be89f37b14c5dc0d4aae03d3a26f114d938c82604656fb3a24' },
      zip: { filename: 'entregas-2026-12-06.zip', file_size: 900, checksum: 'sha256:a95139bab7b1ab897075ecd2d952600918988f1bda2d052e4c5d212a24d4843a' },
    },
  },
  DeliveriesBulk: { body: { day: '2026-12-06', csv_upload_id: '0b7e3f52-8c1d-4e5a-9f60-7a2b3c4d5e6f', zip_upload_id: '1c8f4063-9d2e-4f6b-a071-8b3c4d5e6f70' } },
  DeliveriesFlightArchive: { params: { mawb } },
  DocumentsDownload: { params: { id: '1' } },
  DocumentsHistory: { params: { id: '1' } },
  DocumentsValidate: { params: { id: '1' }, body: { notes: 'Legible; AWB number matches the manifest' } },
  DocumentsApprove: { params: { id: '1' }, body: { notes: 'Approved for clearance' } },
  DocumentsReject: { params: { id: '2' }, body: { reason: 'The scan is cut off: send the whole page' } },
  DocumentsBulkReview: { body: { action: 'validate', ids: [3] } },
  DocumentsSupersede: { params: { id: '2' }, body: { filename: 'awb-0000001-v2.pdf', file_base64: invoicePdfBase64, reason: 'Whole page scanned' } },
  CouriersSubmit: {
    params: { courier: 'default' },
    body: {
      mawbNumber: mawb,
      airline: 'LATAM Cargo',
      flightNumber: 'LA8071',
      originAirport: 'MIA',
      items: [manifestItem(1, {}), manifestItem(2, { consigneeName: 'Juan Gómez', consigneeIdNumber: '20123456786', consigneeEmail: 'juan.gomez@example.com', itemDescription: 'Bluetooth earbuds', hsCode: '8518.30.00', fobValueUsd: 39.9, totalWeightKg: 0.2 }),
        // Declared without a code and described vaguely: it waits for the broker's review.
        manifestItem(3, { consigneeName: 'Lucía Fernández', consigneeIdNumber: '27345678900', consigneeEmail: 'lucia.fernandez@example.com', itemDescription: 'Regalo sorpresa', hsCode: undefined, fobValueUsd: 20, totalWeightKg: 0.5 }),
      ],
    },
  },
  CouriersSubmissionStatus: { params: { courier: 'default', idempotencyKey: '3f0c6c4e-8a8e-4a43-9c31-0d3f5f1d2a10' } },
  CouriersChunkStatus: { params: { baseIdempotencyKey: '7b9e2f4a-1c3d-4e5f-8a9b-0c1d2e3f4a5b' } },
  CouriersRetryMissing: { params: { baseIdempotencyKey: '7b9e2f4a-1c3d-4e5f-8a9b-0c1d2e3f4a5b' } },
  CouriersManifests: { query: { page: 1, per_page: 20 } },
  CouriersBatchStatus: { body: { manifests: [mawb] } },
  CouriersDecisions: { params: { manifest: mawb, batch: 'b_01JEXAMPLE' }, query: { page: 1, per_page: 100 } },
  CouriersPipelineStatus: { params: { manifest: mawb } },
  CouriersDownload: { params: { manifest: mawb }, query: { format: 'json', lang: 'es' } },
  CouriersBatchClose: { params: { batchId: 'b_01JEXAMPLE' } },
  CouriersBatchReopen: { params: { batchId: 'b_01JEXAMPLE' } },
  CouriersQuotaCheck: { body: { tax_id: '27234567891', awb_number: 'AWB0000001' } },
  CouriersClientInfoCanEdit: { body: { awb_number: 'AWB0000001' } },
  CouriersClientInfoUpdate: { body: { awb_number: 'AWB0000001', tax_id: '27234567891' } },
  CustomsCalculate: { body: { destination_country: 'AR', origin_country: 'CN', currency: 'USD', declared_value: 120, weight: 1.2, hs_code: '6109.10.00', description: 'Cotton t-shirts', freight: 15, insurance: 1.2, quantity: 4, regime: 'auto', compare_regimes: true } },
  CustomsNcmSearch: { query: { q: 'remera algodón', limit: 5 } },
  ManifestsList: { query: { page: 1, per_page: 20 } },
  ManifestsCreate: {
    body: {
      manifest: 'MAN-2026-0042',
      products: [
        { awb_number: 'AWB0000101', consignee: 'Lucía Fernández', tax_id: '27234567891', product_description: 'Zapatillas de running', quantity: 1, unit_value: 49.9, country_of_manufacture: 'VN' },
        { awb_number: 'AWB0000102', consignee: 'Juan Gómez', tax_id: '20123456786', product_description: 'Funda de celular', quantity: 2, unit_value: 6.5, country_of_manufacture: 'CN' },
      ],
    },
  },
  ManifestsShow: { params: { manifest: 'MAN-2026-0042' }, query: { page: 1, per_page: 50 } },
  ReviewInbox: { query: { per_page: 20 } },
  ReviewBatches: { query: { per_page: 20, status: 'completed' } },
  ReviewSearch: { query: { q: 'AWB0000001', per_page: 20 } },
  ReviewQueue: { params: { manifest: mawb }, query: { per_page: 50 } },
  ReviewClassification: { params: { manifest: mawb, awb: 'AWB0000001' }, body: { ncm_code: '6109.10.00', reason: 'Knitted cotton t-shirt: 6109.10.00, as declared' } },
  ReviewGroups: { params: { manifest: mawb }, query: { per_page: 50 } },
  ReviewGroupClassification: { params: { manifest: mawb, group: '0f1e2d3c4b5a6978' }, body: { ncm_code: '6109.10.00', reason: 'The invoice shows a knitted cotton t-shirt' } },
  ReviewDecisions: { params: { manifest: mawb }, query: { per_page: 50 } },
  QuotaShipments: { params: { tax_id: '27234567891' }, query: { year: 2026 } },
  DashboardAssets: { params: { asset: 'app.js' } },
  ConsoleScreens: { params: { screen: 'inbox' } },
  ConsoleScreenItem: { params: { screen: 'quota', item: '27234567891' } },
  WebhooksCreate: { body: { endpoint_url: 'https://hooks.andes.example.com/despacho', events: ['manifest.processed', 'manifest.processing_failed', 'document.approved'], active: true } },
  WebhooksShow: { params: { id: '1' } },
  WebhooksUpdate: { params: { id: '1' }, body: { events: ['manifest.processed', 'manifest.processing_failed', 'manifest.total_due', 'document.approved'] } },
  WebhooksDelete: { params: { id: '1' } },
  WebhooksTest: { params: { id: '1' } },
  WebhooksDeliveries: { params: { id: '1' }, query: { per_page: 20, page: 1 } },
  WebhooksRetry: { params: { id: '1', delivery: '1' } },
  WebhooksRetryFailed: { params: { id: '1' }, body: { since: '2026-12-01T00:00:00Z' } },
  WebhooksRotateSecret: { params: { id: '1' } },
  EventsList: { query: { limit: 50, order: 'asc', types: 'manifest.processed,document.approved' } },
  OrdersList: { query: { page: 1, per_page: 20, status: 'pending' } },
  OrdersCreate: {
    body: {
      order_number: 'WEB-10452',
      customer: { name: 'María Pérez', email: 'maria.perez@example.com', phone: '+54 11 5555 0000' },
      shipping_address: address,
      items: [
        { sku: 'MUG-01', name: 'Taza de cerámica', quantity: 2, price: 10.1, weight: 0.4 },
        { sku: 'TEE-02', name: 'Remera algodón', quantity: 1, price: 18, weight: 0.2 },
      ],
      currency: 'USD',
      shipping: 5,
      tax: 1.05,
      financial_status: 'paid',
    },
  },
  OrdersShow: { params: { id: '1' } },
  OrdersUpdate: { params: { id: '1' }, body: { notes: 'Gift wrap, please' } },
  OrdersShip: { params: { id: '1' }, body: { carrier: 'despacho', service: 'standard', packages: [{ weight: 1.2, length: 30, width: 20, height: 10, items: [{ order_item_id: 1, quantity: 2 }] }], warehouse_id: 1 } },
  OrdersFulfill: { params: { id: '1' }, body: { tracking_number: '1Z999AA10123456784', carrier: 'ups', items: [{ order_item_id: 2, quantity: 1 }] } },
  OrdersCancel: { params: { id: '2' }, body: { reason: 'The customer changed their mind', notify_customer: true } },
  OrdersShipments: { params: { id: '1' } },
  OrdersSync: { body: { channels: ['shopify'], since: '2026-12-01' } },
  MarketplacesConnect: { params: { channel: 'shopify' }, body: { base_url: 'https://andes-store.myshopify.com', credentials: { accessToken: 'shpat_0123456789abcdef' } } },
  MarketplacesDisconnect: { params: { channel: 'shopify' } },
  ShipmentLabel: { params: { id: '1' } },
  TrackingUpdates: { body: { tracking_number: '1Z999AA10123456784', status: 'in_transit', occurred_at: '2026-12-07T14:30:00Z' } },
  CarriersConnect: { params: { carrier: 'ups' }, body: { client_id: 'andes-ups-client', client_secret: 'ups-secret-0123456789', account_number: 'A1B2C3', environment: 'sandbox' } },
  CarriersDisconnect: { params: { carrier: 'ups' } },
  ShippingQuotes: {
    body: {
      origin: { country: 'US', postal_code: '33101', city: 'Miami', state: 'FL' },
      destination: { country: 'AR', postal_code: 'C1043', city: 'Buenos Aires', state: 'CABA' },
      packages: [{ weight: 1.2, length: 30, width: 20, height: 10, weight_unit: 'kg', dimension_unit: 'cm' }],
      declared_value: 38.2,
      currency: 'USD',
      include_ddp: true,
      description: 'Ceramic mugs and a cotton t-shirt',
      hs_code: '6912.00',
    },
  },
  InventorySet: { params: { sku: 'MUG-01' }, body: { name: 'Taza de cerámica', stock: 120, threshold: 10, warehouse_id: 1 } },
  WarehousesPut: { params: { id: '1' }, body: { name: 'Depósito Central', address1: '1200 NW 22nd St', city: 'Miami', state: 'FL', postal_code: '33142', country: 'US', phone: '+1 305 555 0100' } },
};
