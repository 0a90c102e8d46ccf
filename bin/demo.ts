/**
 * `npm run cli -- demo`: a partner and a broker account with tokens, and a few transport documents
 * in every state, made through the public API exactly as a client would.
 */
import { deflateSync } from 'node:zlib';

type Call = (method: string, path: string, token: string, body?: unknown) => Promise<any>;

/** A one-page PDF with a line of text (hand-built: header, objects, xref, trailer). */
export function samplePdf(title: string): Buffer {
  const text = title.replace(/[()\\]/g, '');
  const stream = `BT /F1 18 Tf 40 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A small solid-colour PNG (a stamp scan stand-in). */
export function samplePng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(16, 0);
  ihdr.writeUInt32BE(16, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(16 * 3, 0x3c)]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: 16 }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export async function seedDemo(call: Call, adminToken: string): Promise<string[]> {
  const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const partner = (await call('POST', '/v1/admin/accounts', adminToken, { name: `Demo Courier (${stamp})`, kind: 'partner' })).data;
  const broker = (await call('POST', '/v1/admin/accounts', adminToken, { name: `Demo Broker (${stamp})`, kind: 'broker' })).data;
  const partnerToken = (await call('POST', '/v1/admin/tokens', adminToken, { account_id: partner.id, name: 'demo partner', email: 'ops@courier.example', role: 'partner', scopes: ['orders:read', 'orders:write'] })).data.token;
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

  return [
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
