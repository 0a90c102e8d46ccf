import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { multipart, pdf } from '#support/files';
import { manifest, submitPath } from '#support/manifests';
import { wafVerdict, type WafRequest } from '#support/waf-model';
import { workbook } from '#support/workbooks';
import { stageApp } from '#support/cdk';

/**
 * Real uploads through the stage's web ACL, counting and blocking (lib/edge.ts; the model and what
 * it cannot show: test/support/waf-model.ts). The files are the project's own fixtures: a manifest
 * of 300 items, a manifest workbook and a PDF, as partners send them.
 */
const headers = { 'user-agent': 'despacho-partner/1.0', authorization: 'Bearer x', 'content-type': 'application/json' };
const json = (path: string, body: unknown): WafRequest => ({ method: 'POST', path: `/api${path}`, headers, body: Buffer.from(JSON.stringify(body)) });
async function upload(path: string, fields: Record<string, string>, file: { name: string; data: Buffer; type: string }): Promise<WafRequest> {
  const form = await multipart(fields, file);
  return { method: 'POST', path: `/api${path}`, headers: { ...headers, 'content-type': form.contentType }, body: form.body };
}

describe('real manifest, workbook and PDF uploads through the web ACL', { timeout: 180_000 }, () => {
  const acls: Record<'count' | 'block', { Rules: any[] }> = {} as never;
  let uploads: Record<string, WafRequest>;
  beforeAll(async () => {
    for (const mode of ['count', 'block'] as const) {
      const t = Template.fromStack(stageApp('prod', { nag: false, overrides: { wafManagedRules: mode } }).edge!);
      acls[mode] = Object.values(t.findResources('AWS::WAFv2::WebACL'))[0].Properties;
    }
    const items = manifest(300);
    const rows = [['HAWB', 'Descripcion', 'Valor FOB', 'Peso'], ...items.items.slice(0, 200).map((i: any, n: number) => [`H${n}`, String(i.description ?? 'Remera de algodon'), 12.5, 0.3])];
    const document = pdf('Air waybill 123-45678901 ../../ http://10.0.0.1');
    uploads = {
      manifest: json(submitPath(), items),
      manifestCreate: json('/v1/manifests', items),
      workbook: await upload('/v1/manifests/storage/upload', { courier_code: 'default' }, { name: 'manifiesto.xlsx', data: workbook(rows), type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' }),
      pdf: await upload('/v1/transport/documents/upload', { document_type: 'awb' }, { name: 'awb.pdf', data: document, type: 'application/pdf' }),
      pdfBase64: json('/v1/transport/documents/upload', { filename: 'awb.pdf', document_type: 'awb', file_base64: document.toString('base64') }),
    };
  });

  it('lets every upload through while the managed rules count, and after the switch to block', () => {
    for (const mode of ['count', 'block'] as const) {
      for (const [name, request] of Object.entries(uploads)) expect(wafVerdict(acls[mode], request).blockedBy, `${name} (${mode})`).toBeUndefined();
    }
  });

  it("counts a manifest past 8 KB under SizeRestrictions_BODY instead of blocking it: the functions answer 413 at the API's own limit", () => {
    expect(uploads.manifest.body.length).toBeGreaterThan(8192);
    expect(wafVerdict(acls.block, uploads.manifest).counted).toContain('AWSManagedRulesCommonRuleSet:SizeRestrictions_BODY');
  });

  it("lets a file whose bytes look like an attack through on an upload route, where the body rules only count", () => {
    // The PDF's text holds a path traversal and a URL with an IP address, as a scanned waybill may.
    const v = wafVerdict(acls.block, uploads.pdf);
    expect(v.blockedBy).toBeUndefined();
    expect(v.counted).toEqual(expect.arrayContaining(['AWSManagedRulesCommonRuleSet:GenericLFI_BODY', 'AWSManagedRulesCommonRuleSet:GenericRFI_BODY']));
  });

  it('blocks the same patterns on any other route once the switch is at block, and only counts them before', () => {
    const attack = json('/v1/orders', { note: '<script>alert(1)</script>', image: 'http://169.254.169.254/latest/meta-data/' });
    expect(wafVerdict(acls.block, attack).blockedBy).toBe('BodyRulesOutsideUploads');
    const counted = wafVerdict(acls.count, attack);
    expect(counted.blockedBy).toBeUndefined();
    expect(counted.counted).toContain('BodyRulesOutsideUploads');
    expect(wafVerdict(acls.block, { ...attack, headers: {} }).blockedBy).toBe('AWSManagedRulesCommonRuleSet:NoUserAgent_HEADER');
  });
});
