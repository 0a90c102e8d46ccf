/**
 * `npm run cli -- demo`: a partner and a broker account with tokens, a few transport documents
 * in every state, and the partner's orders across channels and statuses (bin/demo-orders.ts),
 * made through the public API exactly as a client would.
 */
import { samplePdf, samplePng } from './sample-files';
import { seedOrderDemo } from './demo-orders';

type Call = (method: string, path: string, token: string, body?: unknown) => Promise<any>;

export async function seedDemo(call: Call, adminToken: string, apiUrl = ''): Promise<string[]> {
  const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const partner = (await call('POST', '/v1/admin/accounts', adminToken, { name: `Demo Courier (${stamp})`, kind: 'partner' })).data;
  const broker = (await call('POST', '/v1/admin/accounts', adminToken, { name: `Demo Broker (${stamp})`, kind: 'broker' })).data;
  const partnerToken = (await call('POST', '/v1/admin/tokens', adminToken, { account_id: partner.id, name: 'demo partner', email: 'ops@courier.example', role: 'partner' })).data.token;
  const brokerToken = (await call('POST', '/v1/admin/tokens', adminToken, { account_id: broker.id, name: 'demo broker', email: 'aduana@broker.example', role: 'broker' })).data.token;

  const upload = async (type: string, name: string, file: Buffer, extra: Record<string, unknown> = {}) =>
    (await call('POST', '/v1/transport/documents/upload', partnerToken, { document_type: type, filename: name, file_base64: file.toString('base64'), ...extra })).data;

  const awb = await upload('awb', 'AWB 176-12345675.pdf', samplePdf('Air Waybill 176-12345675'), { awb_number: '176-12345675', manifest_id: 'MAN-DEMO-1' });
  const manifest = await upload('manifest', 'Manifiesto MAN-DEMO-1.pdf', samplePdf('Manifest MAN-DEMO-1'), { manifest_id: 'MAN-DEMO-1' });
  const customs = await upload('customs', 'Declaración aduanera.pdf', samplePdf('Customs declaration'), { manifest_id: 'MAN-DEMO-1', metadata: { office: 'EZE' } });
  const delivery = await upload('delivery', 'Prueba de entrega.png', samplePng(), { awb_number: '176-12345675' });
  const notes = await upload('other', 'Notas.pdf', samplePdf('Notes'));

  await call('PUT', `/v1/transport/documents/${awb.id}/validate`, brokerToken, { notes: 'Weights match the manifest.' });
  await call('PUT', `/v1/transport/documents/${awb.id}/approve`, brokerToken, {});
  await call('PUT', `/v1/transport/documents/${manifest.id}/validate`, brokerToken, {});
  await call('PUT', `/v1/transport/documents/${customs.id}/reject`, brokerToken, { reason: 'Missing the consignee tax id.' });
  await call('PUT', `/v1/transport/documents/${notes.id}/reject`, brokerToken, { reason: 'Not a transport document.' });
  await call('POST', `/v1/transport/documents/${customs.id}/supersede`, partnerToken, {
    filename: 'Declaración aduanera v2.pdf',
    file_base64: samplePdf('Customs declaration v2').toString('base64'),
    reason: 'Added the consignee tax id.',
  });

  const orderLines = await seedOrderDemo(call, partnerToken, apiUrl);

  return [
    ...orderLines,
    `Demo accounts: partner ${partner.id} "${partner.name}", broker ${broker.id} "${broker.name}".`,
    `Documents: ${awb.id} approved, ${manifest.id} validated, ${customs.id} rejected then superseded by version 2, ${delivery.id} uploaded, ${notes.id} rejected.`,
    '',
    'Partner token (shown once):',
    `  ${partnerToken}`,
    'Broker token (shown once):',
    `  ${brokerToken}`,
    '',
  ];
}
