import { describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { parseCsv, readBulkCsv, readBulkZip, zipEntryNameProblem } from '#core/deliveries/bulk';
import { contentHash, proofFileProblem, proofKindOf, retainUntil } from '#core/deliveries/proof';
import { pdf, png } from '#support/files';

const header = 'awb_number,delivered_at,recipient_name,recipient_dni,recipient_relation,file\n';
const csv = (text: string) => new TextEncoder().encode(text);

describe('the bulk CSV', () => {
  it('reads quoted values with commas, doubled quotes and line breaks, and CRLF rows', () => {
    expect(parseCsv('a,"b, c","say ""hi""","two\nlines"\r\nx,y,z,w\r\n')).toEqual([
      ['a', 'b, c', 'say "hi"', 'two\nlines'],
      ['x', 'y', 'z', 'w'],
    ]);
  });

  it('answers no table for a quote left open', () => {
    expect(parseCsv('a,"b\n')).toBeUndefined();
  });

  it('names a missing column and an unknown one before reading any row', () => {
    const read = readBulkCsv(csv('awb_number,when\nA1,x\n'), '2026-12-06');
    expect('errors' in read && read.errors.csv.join(' ')).toMatch(/Missing columns: delivered_at.*Unknown columns: when/s);
  });

  it('names every bad row by its number and field, and an AWB given twice', () => {
    const read = readBulkCsv(csv(header + 'A1,2026-12-06T10:00:00-03:00,Ana,123,titular,a.png\nA1,2026-12-06T11:00:00-03:00,Eva,30123456,hija,b.png\n'), '2026-12-06');
    expect('errors' in read && Object.keys(read.errors)).toEqual(['rows[1].recipient_dni', 'rows[2].awb_number']);
  });

  it('refuses a row of another Argentine day than the import, even when its UTC date is the same', () => {
    const read = readBulkCsv(csv(header + 'A1,2026-12-06T01:00:00Z,Ana,30123456,titular,a.png\n'), '2026-12-06');
    expect('errors' in read && Object.keys(read.errors)).toEqual(['rows[1].delivered_at']);
  });

  it('refuses bytes that are not UTF-8', () => {
    const read = readBulkCsv(new Uint8Array([0x61, 0xff, 0xfe, 0x0a]), '2026-12-06');
    expect('errors' in read && read.errors.csv).toEqual(['Must be UTF-8 text.']);
  });
});

describe('the bulk ZIP', () => {
  it('reads stored and deflated entries by name', () => {
    const read = readBulkZip(zipSync({ 'a/uno.png': [png(), { level: 0 }], 'dos.pdf': pdf('dos') }));
    expect('files' in read && [...read.files.keys()].sort()).toEqual(['a/uno.png', 'dos.pdf']);
  });

  it('refuses names that leave their folder: .., absolute, backslash, a drive', () => {
    for (const name of ['../x.png', 'a/../../x.png', '/etc/x.png', 'a\\x.png', 'C:x.png']) expect(zipEntryNameProblem(name), name).toMatch(/leaves its folder/);
    expect(zipEntryNameProblem('firmas/AWB1.png')).toBeUndefined();
  });

  it('refuses a bomb from its declared sizes, before expanding it', () => {
    const read = readBulkZip(zipSync({ 'bomb.png': new Uint8Array(20 * 1024 * 1024) }));
    expect('errors' in read && read.errors.zip.join(' ')).toMatch(/expands to over 4 MB|compressed more than 100:1/);
  });

  it('refuses what is not a ZIP', () => {
    expect(readBulkZip(new TextEncoder().encode('PK not really'))).toEqual({ errors: { zip: ['Is not a ZIP archive this service can read.'] } });
  });
});

describe('a proof', () => {
  it('is a PNG, a JPEG or a PDF by its first bytes, whatever its name', () => {
    expect(proofKindOf(png())).toBe('png');
    expect(proofKindOf(pdf())).toBe('pdf');
    expect(proofKindOf(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(proofFileProblem(new TextEncoder().encode('GIF89a'))).toMatch(/PNG or JPEG image or a PDF/);
    expect(proofFileProblem(new Uint8Array(0))).toBe('The file is empty.');
  });

  it('is the same delivery for the same instant written in another zone, and another for another file', () => {
    const input = { awb_number: 'A1', delivered_at: '2026-12-06T15:30:00-03:00', recipient_name: 'Ana', recipient_dni: '30123456', recipient_relation: 'titular' };
    const same = contentHash({ ...input, delivered_at: '2026-12-06T18:30:00Z' }, 'sha256:aa');
    expect(contentHash(input, 'sha256:aa')).toBe(same);
    expect(contentHash(input, 'sha256:bb')).not.toBe(same);
  });

  it('is kept five calendar years from when it was recorded', () => {
    expect(retainUntil(new Date('2026-12-07T18:00:00Z'), 5)).toBe('2031-12-07T18:00:00.000Z');
  });
});
