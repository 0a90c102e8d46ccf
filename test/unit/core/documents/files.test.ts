import { describe, expect, it } from 'vitest';
import {
  documentExtensions,
  extensionOf,
  humanSize,
  inspectFile,
  maxDocumentBytes,
  mimeTypeForExtension,
  sanitizeFileName,
  sha256Checksum,
  zipEntryNames,
} from '#core/documents/files';
import { samplePdf, samplePng, sampleJpeg, sampleXls, sampleXlsx, zip } from '#bin/sample-files';

const xlsxMime = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

describe('the document limits', () => {
  it('allows 10 MiB and the six document types', () => {
    expect(maxDocumentBytes).toBe(10_485_760);
    expect([...documentExtensions]).toEqual(['pdf', 'jpg', 'jpeg', 'png', 'xlsx', 'xls']);
  });
});

describe('sanitizeFileName', () => {
  it('keeps an ordinary name as it is', () => {
    expect(sanitizeFileName('AWB 123-45678901.pdf')).toBe('AWB 123-45678901.pdf');
  });

  it('keeps only the last path component of a traversal or Windows path', () => {
    expect(sanitizeFileName('../../etc/passwd.pdf')).toBe('passwd.pdf');
    expect(sanitizeFileName('C:\\Users\\x\\a.pdf')).toBe('a.pdf');
    expect(sanitizeFileName('..\\..//mixed/..\\b.png')).toBe('b.png');
    expect(sanitizeFileName('folder/')).toBe('file');
    expect(sanitizeFileName('..')).toBe('file');
  });

  it('keeps letters of any script and emoji', () => {
    expect(sanitizeFileName('Guía aérea año 中文 📦.pdf')).toBe('Guía aérea año 中文 📦.pdf');
  });

  it('normalizes to NFC', () => {
    const decomposed = 'Gui\u0301a.pdf';
    expect(sanitizeFileName(decomposed)).toBe('Guía.pdf');
    expect(sanitizeFileName(decomposed)).toBe('Gu\u00eda.pdf');
  });

  it('removes C0, DEL and C1 control characters', () => {
    expect(sanitizeFileName('a\u0000b\u0007c\u001b\u007fd\u0085\u009f.pdf')).toBe('abcd.pdf');
  });

  it('turns tabs and newlines into single spaces', () => {
    expect(sanitizeFileName('Invoice\tMarch\r\n2026.pdf')).toBe('Invoice March 2026.pdf');
  });

  it('does not keep a right-to-left override that disguises the extension', () => {
    const out = sanitizeFileName('invoice\u202Efdp.exe');
    expect(out).not.toContain('\u202E');
    expect(out).toBe('invoicefdp.exe');
    expect(extensionOf(out)).toBe('exe');
  });

  it('removes every bidi embedding, override, isolate and mark', () => {
    const all = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
    expect(sanitizeFileName(`a${all}b.pdf`)).toBe('ab.pdf');
  });

  it('removes lone surrogates, which are not text', () => {
    expect(sanitizeFileName('a\ud800b\udc00.pdf')).toBe('ab.pdf');
  });

  it('trims spaces and dots at both ends', () => {
    expect(sanitizeFileName('  ..report.pdf.. ')).toBe('report.pdf');
    expect(sanitizeFileName(' . . ')).toBe('file');
  });

  it('collapses runs of whitespace, Unicode spaces included', () => {
    expect(sanitizeFileName('a   b\u00a0\u3000c.pdf')).toBe('a b c.pdf');
  });

  it('returns file when nothing is left', () => {
    expect(sanitizeFileName('')).toBe('file');
    expect(sanitizeFileName('\u0000\u202E\u0007')).toBe('file');
  });

  it('caps a long name at 255 characters and keeps its extension', () => {
    const out = sanitizeFileName('a'.repeat(300) + '.pdf');
    expect(out).toHaveLength(255);
    expect(out.endsWith('a.pdf')).toBe(true);
  });

  it('never cuts an emoji in half when capping', () => {
    const out = sanitizeFileName('📦'.repeat(300) + '.xlsx');
    expect([...out]).toHaveLength(255);
    expect(out.endsWith('📦.xlsx')).toBe(true);
    expect(Buffer.from(out, 'utf8').toString('utf8')).toBe(out);
  });

  it('caps a name whose extension is too long to keep', () => {
    const out = sanitizeFileName('a.' + 'b'.repeat(400));
    expect([...out]).toHaveLength(255);
  });
});

describe('extensionOf', () => {
  it('gives the lower-cased extension without the dot', () => {
    expect(extensionOf('SCAN.PDF')).toBe('pdf');
    expect(extensionOf('archive.tar.gz')).toBe('gz');
  });

  it('gives nothing for a name without an extension', () => {
    expect(extensionOf('README')).toBe('');
    expect(extensionOf('.bashrc')).toBe('');
    expect(extensionOf('a.')).toBe('');
    expect(extensionOf('dir.v2/file')).toBe('');
  });
});

describe('mimeTypeForExtension', () => {
  it('declares the type of each allowed extension', () => {
    expect(mimeTypeForExtension('pdf')).toBe('application/pdf');
    expect(mimeTypeForExtension('jpg')).toBe('image/jpeg');
    expect(mimeTypeForExtension('JPEG')).toBe('image/jpeg');
    expect(mimeTypeForExtension('.png')).toBe('image/png');
    expect(mimeTypeForExtension('xls')).toBe('application/vnd.ms-excel');
    expect(mimeTypeForExtension('xlsx')).toBe(xlsxMime);
  });

  it('declares nothing for another extension', () => {
    expect(mimeTypeForExtension('exe')).toBeUndefined();
  });
});

describe('inspectFile', () => {
  it('accepts a real PDF as application/pdf', () => {
    expect(inspectFile('awb.pdf', samplePdf())).toEqual({ ok: true, mimeType: 'application/pdf', extension: 'pdf' });
  });

  it('accepts a real PNG as image/png', () => {
    expect(inspectFile('label.png', samplePng())).toEqual({ ok: true, mimeType: 'image/png', extension: 'png' });
  });

  it('accepts a real JPEG named .jpg or .jpeg as image/jpeg', () => {
    expect(inspectFile('photo.jpg', sampleJpeg())).toEqual({ ok: true, mimeType: 'image/jpeg', extension: 'jpg' });
    expect(inspectFile('photo.JPEG', sampleJpeg())).toEqual({ ok: true, mimeType: 'image/jpeg', extension: 'jpeg' });
  });

  it('accepts a real xls compound file as application/vnd.ms-excel', () => {
    expect(inspectFile('manifest.xls', sampleXls())).toEqual({ ok: true, mimeType: 'application/vnd.ms-excel', extension: 'xls' });
  });

  it('accepts a real xlsx workbook by its ZIP entries', () => {
    expect(zipEntryNames(sampleXlsx())).toContain('xl/workbook.xml');
    expect(inspectFile('manifest.xlsx', sampleXlsx())).toEqual({ ok: true, mimeType: xlsxMime, extension: 'xlsx' });
  });

  it('accepts a workbook whose ZIP carries a comment', () => {
    const withComment = zip({ '[Content_Types].xml': '<Types/>', 'xl/workbook.xml': '<workbook/>' }, { comment: 'made by a test' });
    expect(inspectFile('m.xlsx', withComment).ok).toBe(true);
  });

  it('accepts a PDF header after up to 1024 leading bytes, as PDF readers do', () => {
    expect(inspectFile('a.pdf', Buffer.concat([Buffer.alloc(1024, 0x20), samplePdf()])).ok).toBe(true);
    expect(inspectFile('a.pdf', Buffer.concat([Buffer.alloc(1025, 0x20), samplePdf()])).ok).toBe(false);
  });

  it('judges the extension of the sanitized name', () => {
    expect(inspectFile('../../scan.PDF ', samplePdf())).toEqual({ ok: true, mimeType: 'application/pdf', extension: 'pdf' });
  });

  it('refuses a .pdf that is not a PDF', () => {
    expect(inspectFile('awb.pdf', Buffer.from('just some text, not a pdf'))).toEqual({
      ok: false,
      field: 'file',
      message: "The file's content is not a PDF.",
    });
  });

  it('refuses a .pdf holding a PNG', () => {
    expect(inspectFile('awb.pdf', samplePng())).toMatchObject({ ok: false, message: "The file's content is not a PDF." });
  });

  it('refuses a .png holding a JPEG and a .jpg holding a PNG', () => {
    expect(inspectFile('a.png', sampleJpeg())).toMatchObject({ ok: false, message: "The file's content is not a PNG." });
    expect(inspectFile('a.jpg', samplePng())).toMatchObject({ ok: false, message: "The file's content is not a JPG." });
  });

  it('refuses an .xls holding a workbook ZIP and an .xlsx holding an OLE file', () => {
    expect(inspectFile('a.xls', sampleXlsx())).toMatchObject({ ok: false, message: "The file's content is not a XLS." });
    expect(inspectFile('a.xlsx', sampleXls())).toMatchObject({ ok: false, message: "The file's content is not a XLSX." });
  });

  it('refuses an .xlsx that is another kind of ZIP', () => {
    const docx = zip({ '[Content_Types].xml': '<Types/>', 'word/document.xml': '<w:document/>' });
    const plain = zip({ 'xl/workbook.xml': '<workbook/>' });
    expect(inspectFile('a.xlsx', docx)).toMatchObject({ ok: false, message: "The file's content is not a XLSX." });
    expect(inspectFile('a.xlsx', plain).ok).toBe(false);
  });

  it('reads entry names from the central directory, not from strings anywhere in the file', () => {
    const decoy = zip({ 'readme.txt': 'hello' }, { comment: '[Content_Types].xml xl/workbook.xml' });
    expect(inspectFile('a.xlsx', decoy).ok).toBe(false);
    const stored = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.from('[Content_Types].xml xl/workbook.xml')]);
    expect(inspectFile('a.xlsx', stored).ok).toBe(false);
  });

  it('refuses every truncation of a workbook without throwing', () => {
    const full = sampleXlsx();
    for (let n = 0; n < full.length; n++) {
      const res = inspectFile('a.xlsx', full.subarray(0, n));
      expect(res.ok).toBe(false);
    }
  });

  it('never throws on a corrupted workbook', () => {
    const full = sampleXlsx();
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 3000; i++) {
      const bad = Buffer.from(full);
      const flips = 1 + Math.floor(random() * 8);
      // Mostly the central directory and the EOCD at the end, sometimes anywhere.
      for (let f = 0; f < flips; f++) {
        const at = random() < 0.8 ? full.length - 1 - Math.floor(random() * 400) : Math.floor(random() * full.length);
        bad[at] = Math.floor(random() * 256);
      }
      expect(() => inspectFile('a.xlsx', bad)).not.toThrow();
    }
  });

  it('refuses crafted ZIP directories that point outside the file', () => {
    const good = sampleXlsx();
    const eocd = good.length - 22;
    const variants: Array<(b: Buffer) => void> = [
      (b) => b.writeUInt32LE(0xfffffff0, eocd + 16), // directory offset past the end
      (b) => b.writeUInt32LE(0xfffffff0, eocd + 12), // directory size past the end
      (b) => b.writeUInt16LE(0xfffe, eocd + 10), // more entries than the directory holds
      (b) => b.writeUInt16LE(0xffff, eocd + 20), // comment longer than the file
      (b) => b.writeUInt16LE(0xffff, b.readUInt32LE(eocd + 16) + 28), // first name runs past the directory
      (b) => b.writeUInt32LE(0xffffffff, eocd + 16), // ZIP64 marker without a ZIP64 record
      (b) => b.writeUInt16LE(0xffff, eocd + 10), // ZIP64 marker (entries) without a ZIP64 record
    ];
    for (const damage of variants) {
      const bad = Buffer.from(good);
      damage(bad);
      expect(inspectFile('a.xlsx', bad).ok).toBe(false);
    }
  });

  it('refuses a ZIP64 locator that points at nonsense', () => {
    const good = sampleXlsx();
    const eocdAt = good.length - 22;
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(2n ** 63n, 8);
    const eocd = Buffer.from(good.subarray(eocdAt));
    eocd.writeUInt32LE(0xffffffff, 16);
    const bad = Buffer.concat([good.subarray(0, eocdAt), locator, eocd]);
    expect(() => inspectFile('a.xlsx', bad)).not.toThrow();
    expect(inspectFile('a.xlsx', bad).ok).toBe(false);
  });

  it('refuses a bare signature of each type', () => {
    expect(inspectFile('a.xlsx', Buffer.from('PK\x03\x04')).ok).toBe(false);
    expect(inspectFile('a.xls', Buffer.from([0xd0, 0xcf, 0x11, 0xe0])).ok).toBe(false);
    expect(inspectFile('a.png', Buffer.from([0x89, 0x50, 0x4e, 0x47])).ok).toBe(false);
    expect(inspectFile('a.jpg', Buffer.from([0xff, 0xd8])).ok).toBe(false);
    expect(inspectFile('a.pdf', Buffer.from('%PDF')).ok).toBe(false);
  });

  it('refuses an empty file', () => {
    expect(inspectFile('awb.pdf', Buffer.alloc(0))).toEqual({ ok: false, field: 'file', message: 'The file is empty.' });
  });

  it('refuses a type that is not allowed, whatever the content', () => {
    const refused = { ok: false, field: 'file', message: 'Allowed types: pdf, jpg, jpeg, png, xlsx, xls.' };
    expect(inspectFile('tool.exe', samplePdf())).toEqual(refused);
    expect(inspectFile('letter.docx', sampleXlsx())).toEqual(refused);
    expect(inspectFile('noextension', samplePdf())).toEqual(refused);
    expect(inspectFile('invoice\u202Efdp.exe', samplePdf())).toEqual(refused);
    expect(inspectFile('empty.exe', Buffer.alloc(0))).toEqual(refused);
  });
});

describe('humanSize', () => {
  it('shows bytes below 1 KB as whole bytes', () => {
    expect(humanSize(0)).toBe('0 B');
    expect(humanSize(512)).toBe('512 B');
    expect(humanSize(1023)).toBe('1023 B');
  });

  it('shows larger sizes in binary units with one decimal', () => {
    expect(humanSize(1024)).toBe('1.0 KB');
    expect(humanSize(1536)).toBe('1.5 KB');
    expect(humanSize(1258291)).toBe('1.2 MB');
    expect(humanSize(10485760)).toBe('10.0 MB');
    expect(humanSize(5 * 1024 ** 3)).toBe('5.0 GB');
  });

  it('moves to the next unit instead of showing 1024.0', () => {
    expect(humanSize(1048575)).toBe('1.0 MB');
  });

  it('refuses a negative or infinite size', () => {
    expect(() => humanSize(-1)).toThrow(RangeError);
    expect(() => humanSize(Number.NaN)).toThrow(RangeError);
  });
});

describe('sha256Checksum', () => {
  it('prefixes the hex SHA-256 with its algorithm', () => {
    expect(sha256Checksum(Buffer.from('abc'))).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
