import { runOk } from '#support/run';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { xlsxWorkbook, type Cell } from '#infra/xlsx-writer';
import { XLSX } from '#support/workbooks';

async function bytesOf(gen: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of gen) parts.push(chunk);
  return Buffer.concat(parts);
}

const rowsOf = (n: number): Cell[][] => Array.from({ length: n }, (_, i) => [`AWB-${i}`, `Producto número ${i} <con> "marcas" & acentos`, i + 0.25, i % 7 === 0 ? null : 'AR']);

describe('the streaming xlsx writer', () => {
  it('writes a workbook that sheetjs reads back cell for cell, 30,000 rows over many compressed batches', async () => {
    const rows = rowsOf(30_000);
    const bytes = await bytesOf(
      xlsxWorkbook([
        { name: 'Products', columns: [{ header: 'AWB', width: 14 }, { header: 'Description', width: 40 }, { header: 'FOB', width: 10, money: true }, { header: 'Country', width: 8 }], rows },
        { name: 'Summary', rows: [['Products', 30_000]] },
      ]),
    );
    const book = XLSX.read(bytes, { type: 'buffer' });
    expect(book.SheetNames).toEqual(['Products', 'Summary']);
    const read = XLSX.utils.sheet_to_json<Cell[]>(book.Sheets.Products, { header: 1, defval: null });
    expect(read[0]).toEqual(['AWB', 'Description', 'FOB', 'Country']);
    expect(read.slice(1)).toEqual(rows);
    expect(XLSX.utils.sheet_to_json<Cell[]>(book.Sheets.Summary, { header: 1 })).toEqual([['Products', 30_000]]);
  });

  it("gives every entry the CRC-32 and size of its bytes, as an independent zip reader (Python's zipfile) checks them", async () => {
    const bytes = await bytesOf(xlsxWorkbook([{ name: 'Products', rows: rowsOf(5_000) }]));
    const dir = mkdtempSync(join(tmpdir(), 'xlsx-writer-'));
    try {
      const file = join(dir, 'book.xlsx');
      writeFileSync(file, bytes);
      const script = 'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nbad = z.testzip()\nprint("bad" if bad else "ok", len(z.infolist()), sum(i.file_size for i in z.infolist()))';
      const [verdict, entries, size] = (await runOk('python3', ['-c', script, file])).trim().split(' ');
      expect(verdict).toBe('ok');
      expect(Number(entries)).toBeGreaterThanOrEqual(6);
      expect(Number(size)).toBeGreaterThan(bytes.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops with the error of a row source that fails, and writes nothing after it', async () => {
    async function* failing(): AsyncGenerator<Cell[]> {
      for (let i = 0; i < 3_000; i++) yield [`row ${i}`];
      throw new Error('the results store went away');
    }
    await expect(bytesOf(xlsxWorkbook([{ name: 'Products', rows: failing() }]))).rejects.toThrow('the results store went away');
  });
});
