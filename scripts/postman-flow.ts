/**
 * How the Postman collection runs from top to bottom on a fresh twin, each request on its first
 * Send: the order of its requests, and what each takes from earlier answers. The requests' own
 * examples are the routes' (lambdas/http/system/request-examples.ts, in openapi.json); this adds
 * the ids a request needs that an earlier one made (a batch, a document, a subscription), kept in
 * collection variables that the earlier request's test script sets, and the token it acts with
 * (`bearerToken` by default: a partner; `brokerToken` for a broker's review, `adminToken` for the
 * operator's routes). scripts/generate-postman.ts writes it into the collection;
 * test/integration/system/postman.test.ts runs the collection against a twin.
 */
export interface FlowStep {
  /** The token variable sent instead of `bearerToken`. */
  as?: 'adminToken' | 'brokerToken';
  /** Path parameter → the variable that fills it. */
  path?: Record<string, string>;
  /** Query parameter → the variable that fills it. */
  query?: Record<string, string>;
  /** Dotted path in the JSON body (`ids.0`) → the variable that fills it (a number stays unquoted). */
  body?: Record<string, string>;
  /** Headers sent, `{{variables}}` allowed. */
  headers?: Record<string, string>;
  /** Lines of the pre-request script. */
  prerequest?: string[];
  /** Variable → dotted path in the answer's JSON that the test script saves into it. */
  saves?: Record<string, string>;
  /** Multipart fields sent as files: field → a file under clients/postman (Postman's working directory). */
  files?: Record<string, string>;
}

/**
 * A pre-request script line that posts a file to the presigned form an earlier answer gave
 * (`<prefix>_upload_url`, `<prefix>_upload_fields`), as a partner's code does before completing.
 */
const postToStorage = (prefix: string, file: string) =>
  `pm.sendRequest({ url: pm.collectionVariables.get('${prefix}_upload_url'), method: 'POST', body: { mode: 'formdata', formdata: [...Object.entries(JSON.parse(pm.collectionVariables.get('${prefix}_upload_fields'))).map(([key, value]) => ({ key, value, type: 'text' })), { key: 'file', src: '${file}', type: 'file' }] } }, (err, res) => { if (err || res.code >= 300) throw new Error('the file to storage: ' + (err || res.code + ' ' + res.text())); });`;

/** A pre-request script line that sends a request first (pm.sendRequest) and waits for it. */
const send = (method: string, url: string, body?: unknown, token = 'bearerToken') =>
  `pm.sendRequest({ url: pm.variables.replaceIn('{{baseUrl}}${url}'), method: '${method}', header: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + pm.collectionVariables.get('${token}') }${
    body === undefined ? '' : `, body: { mode: 'raw', raw: pm.variables.replaceIn(${JSON.stringify(JSON.stringify(body))}) }`
  } }, (err, res) => { if (err || res.code >= 300) throw new Error('${method} ${url}: ' + (err || res.code + ' ' + res.text())); });`;

const chunkItem = { awbNumber: 'AWB0000901', originCountry: 'US', consigneeName: 'Ana Ruiz', consigneeIdType: 'CUIL', consigneeIdNumber: '27234567891', itemDescription: 'Running shoes', fobValueUsd: 45, totalWeightKg: 0.9, amountOfItems: 1, amountOfPackages: 1 };

export const flowOrder: string[] = [
  'Health',
  'OpenApi',
  'ApiDocs',
  'ApiDocsScript',
  'Me',
  'MyTokensList',
  'AdminAccountsCreate',
  'AdminAccountsList',
  'AdminAccountSigningSecret',
  'AdminAccountTariffConsent',
  'AdminAccountTariffDecisions',
  'AdminTokensCreate',
  'AdminTokensList',
  'AdminTokensRevoke',
  'MyTokensRevoke',
  'AdminTariffShow',
  'AdminMigrateChannelCodes',
  'AdminMigrateSigningSecrets',
  'AdminMigrateTokenScopes',
  'AdminExchangeRatesPut',
  'AdminExchangeRatesList',
  'AdminMetrics',
  'ManifestStorageUpload',
  'ManifestStorageUploadUrl',
  'ManifestStorageUploadComplete',
  'ManifestStorageList',
  'CouriersSubmit',
  'CouriersSubmissionStatus',
  'CouriersChunkStatus',
  'CouriersRetryMissing',
  'CouriersManifests',
  'CouriersBatchStatus',
  'CouriersPipelineStatus',
  'CouriersDecisions',
  'CouriersDownload',
  'CouriersQuotaCheck',
  'CouriersClientInfoCanEdit',
  'CouriersClientInfoUpdate',
  'ReviewInbox',
  'ReviewBatches',
  'ReviewSearch',
  'ReviewQueue',
  'ReviewGroups',
  'ReviewGroupClassification',
  'ReviewClassification',
  'ReviewDecisions',
  'QuotaShipments',
  'CouriersBatchClose',
  'CouriersBatchReopen',
  'DocumentsUpload',
  'DocumentsUploadUrl',
  'DocumentsUploadComplete',
  'DocumentsList',
  'DocumentsShow',
  'DocumentsDownload',
  'DocumentsHistory',
  'DocumentsValidate',
  'DocumentsApprove',
  'DocumentsSupersede',
  'DocumentsReject',
  'DocumentsBulkReview',
  'DocumentsDelete',
  'DeliveriesRecord',
  'DeliveriesBulkUploadUrl',
  'DeliveriesBulk',
  'DeliveriesList',
  'DeliveriesFlightArchive',
  'WebhooksAvailableEvents',
  'WebhooksCreate',
  'WebhooksList',
  'WebhooksShow',
  'WebhooksUpdate',
  'WebhooksTest',
  'WebhooksDeliveries',
  'WebhooksRetry',
  'WebhooksRetryFailed',
  'WebhooksRotateSecret',
  'WebhooksDelete',
  'CustomsCalculate',
  'CustomsNcmSearch',
  'ManifestsCreate',
  'ManifestsList',
  'ManifestsShow',
  'EventsList',
  'WarehousesPut',
  'WarehousesList',
  'InventorySet',
  'InventoryList',
  'OrdersCreate',
  'OrdersList',
  'OrdersShow',
  'OrdersUpdate',
  'OrdersShip',
  'OrdersShipments',
  'ShipmentLabel',
  'OrdersFulfill',
  'TrackingUpdates',
  'OrdersCancel',
  'MarketplacesConnect',
  'MarketplacesList',
  'OrdersSync',
  'OrdersSyncStatus',
  'MarketplacesDisconnect',
  'CarriersConnect',
  'CarriersList',
  'ShippingQuotes',
  'CarriersDisconnect',
  'DashboardPage',
  'DashboardAssets',
  'ConsolePage',
  'ConsoleScreens',
  'ConsoleScreenItem',
  'AdminTariffImport',
];

export const flowSteps: Record<string, FlowStep> = {
  Me: { saves: { account_id: 'data.account.id' } },
  AdminAccountsCreate: { as: 'adminToken', saves: { new_account_id: 'data.id' } },
  AdminAccountsList: { as: 'adminToken' },
  AdminAccountSigningSecret: { as: 'adminToken', path: { id: 'new_account_id' } },
  AdminAccountTariffConsent: { as: 'adminToken', path: { id: 'new_account_id' } },
  AdminAccountTariffDecisions: { as: 'adminToken', path: { id: 'new_account_id' } },
  AdminTokensCreate: { as: 'adminToken', body: { account_id: 'account_id' }, saves: { spare_token_id: 'data.id' } },
  AdminTokensList: { as: 'adminToken', query: { account_id: 'account_id' } },
  AdminTokensRevoke: {
    as: 'adminToken',
    path: { id: 'spare_token_id' },
  },
  MyTokensRevoke: {
    path: { id: 'second_spare_token_id' },
    prerequest: [
      `pm.sendRequest({ url: pm.variables.replaceIn('{{baseUrl}}/api/v1/admin/tokens'), method: 'POST', header: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + pm.collectionVariables.get('adminToken') }, body: { mode: 'raw', raw: JSON.stringify({ account_id: Number(pm.collectionVariables.get('account_id')), name: 'To revoke', role: 'partner', scopes: ['manifests:read'] }) } }, (err, res) => { if (err || res.code !== 201) throw new Error('a token to revoke: ' + (err || res.text())); pm.collectionVariables.set('second_spare_token_id', res.json().data.id); });`,
    ],
  },
  AdminTariffShow: { as: 'adminToken' },
  AdminMigrateChannelCodes: { as: 'adminToken' },
  AdminMigrateSigningSecrets: { as: 'adminToken' },
  AdminMigrateTokenScopes: { as: 'adminToken' },
  AdminExchangeRatesPut: { as: 'adminToken' },
  AdminExchangeRatesList: { as: 'adminToken' },
  AdminMetrics: { as: 'adminToken' },
  AdminTariffImport: { as: 'adminToken' },
  WebhooksCreate: { body: { endpoint_url: 'webhookUrl' }, saves: { subscription_id: 'data.id', webhook_secret: 'data.hmac_secret' } },
  WebhooksShow: { path: { id: 'subscription_id' } },
  WebhooksUpdate: { path: { id: 'subscription_id' } },
  WebhooksTest: {
    path: { id: 'subscription_id' },
    // The subscription hears document.approved: one is approved first, so the delivery log has an entry.
    prerequest: [send('PUT', '/api/v1/transport/documents/{{third_document_id}}/approve', { notes: 'Approved for clearance' }, 'brokerToken')],
  },
  WebhooksDeliveries: { path: { id: 'subscription_id' }, saves: { delivery_id: 'data.0.id' } },
  // A delivery that failed (the receiver was down): a delivered one answers 409.
  WebhooksRetry: { path: { id: 'subscription_id', delivery: 'delivery_id' } },
  WebhooksRetryFailed: { path: { id: 'subscription_id' } },
  WebhooksRotateSecret: { path: { id: 'subscription_id' } },
  WebhooksDelete: { path: { id: 'subscription_id' } },
  CouriersSubmit: {
    prerequest: [`pm.collectionVariables.set('submission_key', pm.variables.replaceIn('{{$guid}}'));`],
    headers: { 'Idempotency-Key': '{{submission_key}}' },
  },
  CouriersSubmissionStatus: { path: { idempotencyKey: 'submission_key' }, saves: { batch_id: 'batch_id' } },
  CouriersChunkStatus: {
    path: { baseIdempotencyKey: 'chunk_key' },
    prerequest: [
      `pm.collectionVariables.set('chunk_key', pm.variables.replaceIn('{{$guid}}'));`,
      send('POST', '/api/v1/couriers/default/manifests/webhook', { mawbNumber: '176-22222226', items: [chunkItem], _chunk_metadata: { chunk_number: 1, total_chunks: 2, base_idempotency_key: '{{chunk_key}}', total_items: 2 } }),
    ],
  },
  CouriersRetryMissing: { path: { baseIdempotencyKey: 'chunk_key' } },
  CouriersDecisions: { path: { batch: 'batch_id' } },
  CouriersBatchClose: { as: 'brokerToken', path: { batchId: 'batch_id' } },
  CouriersBatchReopen: { as: 'brokerToken', path: { batchId: 'batch_id' } },
  ReviewInbox: { as: 'brokerToken' },
  ReviewBatches: { as: 'brokerToken' },
  ReviewSearch: { as: 'brokerToken' },
  // A broker names another account's manifest by its batch id.
  ReviewQueue: { as: 'brokerToken', path: { manifest: 'batch_id' } },
  ReviewGroups: { as: 'brokerToken', path: { manifest: 'batch_id' }, saves: { review_group: 'data.0.group_id' } },
  ReviewGroupClassification: { as: 'brokerToken', path: { manifest: 'batch_id', group: 'review_group' } },
  ReviewClassification: { as: 'brokerToken', path: { manifest: 'batch_id' } },
  ReviewDecisions: { as: 'brokerToken', path: { manifest: 'batch_id' } },
  DocumentsUpload: { saves: { document_id: 'data.id' } },
  DocumentsUploadUrl: { saves: { document_upload_id: 'data.upload_id', document_upload_url: 'data.upload_url', document_upload_fields: 'data.fields' } },
  DocumentsUploadComplete: { path: { uploadId: 'document_upload_id' }, prerequest: [postToStorage('document', 'files/awb-0000001.pdf')], saves: { third_document_id: 'data.id' } },
  DocumentsShow: { path: { id: 'document_id' } },
  DocumentsDownload: { path: { id: 'document_id' } },
  DocumentsHistory: { path: { id: 'document_id' } },
  DocumentsValidate: { as: 'brokerToken', path: { id: 'document_id' } },
  DocumentsApprove: { as: 'brokerToken', path: { id: 'document_id' } },
  DocumentsSupersede: { path: { id: 'document_id' }, saves: { second_document_id: 'data.new_document.id' } },
  DocumentsReject: { as: 'brokerToken', path: { id: 'second_document_id' } },
  DocumentsBulkReview: { as: 'brokerToken', body: { 'ids.0': 'third_document_id' } },
  DocumentsDelete: { path: { id: 'second_document_id' } },
  DeliveriesBulkUploadUrl: {
    saves: {
      delivery_csv_upload_id: 'data.csv.upload_id',
      delivery_csv_upload_url: 'data.csv.upload_url',
      delivery_csv_upload_fields: 'data.csv.fields',
      delivery_zip_upload_id: 'data.zip.upload_id',
      delivery_zip_upload_url: 'data.zip.upload_url',
      delivery_zip_upload_fields: 'data.zip.fields',
    },
  },
  DeliveriesBulk: {
    body: { csv_upload_id: 'delivery_csv_upload_id', zip_upload_id: 'delivery_zip_upload_id' },
    prerequest: [postToStorage('delivery_csv', 'files/entregas-2026-12-06.csv'), postToStorage('delivery_zip', 'files/entregas-2026-12-06.zip')],
  },
  ManifestStorageUpload: { files: { file: 'files/manifiesto.json' } },
  ManifestStorageUploadUrl: { saves: { storage_upload_id: 'data.upload_id', storage_upload_url: 'data.upload_url', storage_upload_fields: 'data.fields' } },
  ManifestStorageUploadComplete: { path: { uploadId: 'storage_upload_id' }, prerequest: [postToStorage('storage', 'files/manifiesto-2.json')] },
  OrdersCreate: { saves: { order_id: 'data.id', order_item_id: 'data.items.0.id', second_order_item_id: 'data.items.1.id' } },
  OrdersShow: { path: { id: 'order_id' } },
  OrdersUpdate: { path: { id: 'order_id' } },
  OrdersShip: { path: { id: 'order_id' }, body: { 'packages.0.items.0.order_item_id': 'order_item_id' }, saves: { shipment_id: 'data.shipment_id' } },
  OrdersShipments: { path: { id: 'order_id' } },
  ShipmentLabel: { path: { id: 'shipment_id' } },
  OrdersFulfill: { path: { id: 'order_id' }, body: { 'items.0.order_item_id': 'second_order_item_id' } },
  OrdersCancel: {
    path: { id: 'cancel_order_id' },
    prerequest: [
      `pm.sendRequest({ url: pm.variables.replaceIn('{{baseUrl}}/api/v1/orders'), method: 'POST', header: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + pm.collectionVariables.get('bearerToken') }, body: { mode: 'raw', raw: JSON.stringify({ customer: { name: 'Juan Gómez', email: 'juan.gomez@example.com' }, shipping_address: { name: 'Juan Gómez', address1: 'Av. Santa Fe 2100', city: 'Buenos Aires', state: 'CABA', postal_code: 'C1123', country: 'AR' }, items: [{ sku: 'TEE-02', name: 'Remera algodón', quantity: 1, price: 18 }], currency: 'USD' }) } }, (err, res) => { if (err || res.code !== 201) throw new Error('an order to cancel: ' + (err || res.text())); pm.collectionVariables.set('cancel_order_id', res.json().data.id); });`,
    ],
  },
};
