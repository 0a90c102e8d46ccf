import { describe, expect, it } from 'vitest';
import { inspectManifestFile } from '#core/manifest-files/files';
import { normalizeCourierCode, courierCodePattern } from '#core/manifest-files/model';
import { samplePdf, samplePng, sampleXls, sampleXlsx, zip } from '#bin/sample-files';

const ok = (mimeType: string, extension: string) => ({ ok: true, mimeType, extension });

describe('stored manifest file content checks', () => {
  it('accepts each allowed type whose content matches its extension', () => {
    expect(inspectManifestFile('m.json', Buffer.from('{"a":1}'), 'parse')).toEqual(ok('application/json', 'json'));
    expect(inspectManifestFile('m.xlsx', sampleXlsx(), 'parse')).toEqual(ok('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'));
    expect(inspectManifestFile('M.XLSM', sampleXlsx(), 'parse')).toEqual(ok('application/vnd.ms-excel.sheet.macroEnabled.12', 'xlsm'));
    expect(inspectManifestFile('m.xls', sampleXls(), 'parse')).toEqual(ok('application/vnd.ms-excel', 'xls'));
  });

  it('refuses a ZIP that is not a spreadsheet named .xlsx', () => {
    expect(inspectManifestFile('m.xlsx', zip({ 'readme.txt': 'hi' }), 'parse')).toMatchObject({ ok: false, field: 'file' });
  });

  it('refuses images and PDFs whatever their name', () => {
    for (const name of ['m.xlsx', 'm.xls', 'm.json', 'm.pdf', 'm.png']) {
      expect(inspectManifestFile(name, samplePng(), 'parse').ok, name).toBe(false);
      expect(inspectManifestFile(name, samplePdf(), 'parse').ok, name).toBe(false);
    }
  });

  it('accepts JSON with a UTF-8 byte order mark and surrounding whitespace', () => {
    const text = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('\n  [1, 2]\r\n')]);
    expect(inspectManifestFile('m.json', text, 'parse').ok).toBe(true);
  });

  it('parses JSON in full only when asked to', () => {
    const broken = Buffer.from('{"a": [1, 2}');
    expect(inspectManifestFile('m.json', broken, 'parse').ok).toBe(false);
    expect(inspectManifestFile('m.json', broken, 'shape').ok).toBe(true);
  });

  it('refuses JSON that is not UTF-8, not an object or array, or only whitespace, even for the shape check', () => {
    for (const bytes of [Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), Buffer.from('"text"'), Buffer.from('{"a":1]'), Buffer.from('   '), Buffer.from('{')]) {
      expect(inspectManifestFile('m.json', bytes, 'shape').ok, bytes.toString('hex')).toBe(false);
    }
  });

  it('refuses an empty file', () => {
    expect(inspectManifestFile('m.json', Buffer.alloc(0), 'parse')).toEqual({ ok: false, field: 'file', message: 'The file is empty.' });
  });
});

describe('courier codes', () => {
  it('accepts 2 to 10 ASCII letters or digits and stores them upper-cased', () => {
    for (const code of ['DH', 'dhl', 'Fedex', 'A1B2C3D4E5']) expect(courierCodePattern.test(code), code).toBe(true);
    for (const code of ['D', 'A1B2C3D4E5F', 'DH L', 'DH-L', 'ÑA', '']) expect(courierCodePattern.test(code), code).toBe(false);
    expect(normalizeCourierCode(' dhl ')).toBe('DHL');
  });
});
