import { describe, expect, it } from 'vitest';
import { findRow, ncmDigits, normalizeNcm, parseTariffCsv } from '#core/tariff/table';
import { builtinTariff } from '#core/tariff/builtin';
import { defaultFallbackNcm } from '#core/tariff/classifier';

describe('parsing a tariff CSV', () => {
  it('reads rows, normalizes NCM codes written with or without dots and splits keywords on ;', () => {
    const { rows, errors } = parseTariffCsv(
      'ncm,description,duty_rate,description_en,keywords\n' +
        '85171300,Teléfonos inteligentes,16,Smartphones,celular; smartphone ;  ;iphone\n' +
        '6109.10.00,Camisetas de punto de algodón,35,,\n',
    );
    expect(errors).toEqual([]);
    expect(rows).toEqual([
      { ncm: '8517.13.00', description: 'Teléfonos inteligentes', duty_rate: 16, description_en: 'Smartphones', keywords: ['celular', 'smartphone', 'iphone'] },
      { ncm: '6109.10.00', description: 'Camisetas de punto de algodón', duty_rate: 35 },
    ]);
  });

  it('accepts the optional columns in any order and omitted', () => {
    const { rows, errors } = parseTariffCsv('duty_rate,ncm,description\n0,4901.99.00,Libros\n');
    expect(errors).toEqual([]);
    expect(rows).toEqual([{ ncm: '4901.99.00', description: 'Libros', duty_rate: 0 }]);
  });

  it('reads quoted fields holding commas, doubled quotes and line breaks', () => {
    const { rows, errors } = parseTariffCsv(
      'ncm,description,duty_rate,keywords\n' +
        '4202.92.00,"Mochilas, bolsos de viaje y ""riñoneras""",35,"mochila;bolso, de viaje"\n' +
        '9503.00.99,"Los demás juguetes\nde cualquier clase",35,juguete\n' +
        '3926.90.90,Manufacturas de plástico,18,funda\n',
    );
    expect(errors).toEqual([]);
    expect(rows[0]).toMatchObject({ description: 'Mochilas, bolsos de viaje y "riñoneras"', keywords: ['mochila', 'bolso, de viaje'] });
    expect(rows[1].description).toBe('Los demás juguetes\nde cualquier clase');
    expect(rows[2].ncm).toBe('3926.90.90');
  });

  it('tolerates a byte-order mark, CRLF line ends, blank lines and a percent sign on the rate', () => {
    const { rows, errors } = parseTariffCsv('\uFEFFncm,description,duty_rate\r\n\r\n8518.30.00,Auriculares,20%\r\n');
    expect(errors).toEqual([]);
    expect(rows).toEqual([{ ncm: '8518.30.00', description: 'Auriculares', duty_rate: 20 }]);
  });

  it('reports every bad NCM by line number and returns no rows', () => {
    const { rows, errors } = parseTariffCsv('ncm,description,duty_rate\n8517.13.00,Ok,16\n851713,Seis dígitos,16\n8517.1300,Puntos mal,16\nabcdefgh,Letras,16\n');
    expect(rows).toEqual([]);
    expect(errors.map((e) => e.line)).toEqual([3, 4, 5]);
    expect(errors[0].message).toMatch(/ncm '851713' must be 8 digits/);
  });

  it('refuses duty rates outside 0 to 35 or that are not numbers', () => {
    const { errors } = parseTariffCsv('ncm,description,duty_rate\n0101.01.01,A,36\n0101.01.02,B,-1\n0101.01.03,C,abc\n0101.01.04,D,\n0101.01.05,E,35\n');
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5]);
    expect(errors.every((e) => /duty_rate .* must be a number from 0 to 35/.test(e.message))).toBe(true);
  });

  it('reports a repeated NCM, a missing description and a wrong number of fields on their lines', () => {
    const { errors } = parseTariffCsv('ncm,description,duty_rate\n0101.01.01,A,1\n01010101,B,1\n0101.01.02,,1\n0101.01.03,Con, coma sin comillas,1\n');
    expect(errors).toEqual([
      { line: 3, message: expect.stringContaining('repeated (first on line 2)') },
      { line: 4, message: expect.stringContaining('description is empty') },
      { line: 5, message: expect.stringContaining('Expected 3 fields, found 4') },
    ]);
  });

  it('counts line numbers across quoted line breaks', () => {
    const { errors } = parseTariffCsv('ncm,description,duty_rate\n0101.01.01,"dos\nlíneas",1\nmal,X,1\n');
    expect(errors).toEqual([{ line: 4, message: expect.stringContaining("ncm 'mal'") }]);
  });

  it('refuses a header that lacks a required column or names an unknown one', () => {
    expect(parseTariffCsv('ncm,description\n0101.01.01,A\n').errors).toEqual([{ line: 1, message: expect.stringContaining("missing column 'duty_rate'") }]);
    expect(parseTariffCsv('ncm,description,dutyrate\n').errors[0].message).toContain("unknown column 'dutyrate'");
  });

  it('refuses an empty file and a file with a header only', () => {
    expect(parseTariffCsv('').errors[0]).toMatchObject({ line: 1, message: expect.stringContaining('empty') });
    expect(parseTariffCsv('ncm,description,duty_rate\n').errors[0]).toMatchObject({ line: 1, message: expect.stringContaining('no tariff rows') });
  });

  it('reports an unclosed quote', () => {
    expect(parseTariffCsv('ncm,description,duty_rate\n0101.01.01,"abierta,1\n').errors[0]).toMatchObject({ line: 2, message: expect.stringContaining('not closed') });
  });
});

describe('NCM codes', () => {
  it('are compared by their digits', () => {
    expect(ncmDigits('8517.13.00')).toBe('85171300');
    expect(normalizeNcm('85171300')).toBe('8517.13.00');
    expect(normalizeNcm('8517.13')).toBeUndefined();
    expect(findRow(builtinTariff, '85171300')?.ncm).toBe('8517.13.00');
    expect(findRow(builtinTariff, '8517.13')).toBeUndefined();
  });
});

describe('the built-in tariff table', () => {
  it('has at least 300 rows with unique, well-formed NCM codes', () => {
    expect(builtinTariff.length).toBeGreaterThanOrEqual(300);
    const codes = builtinTariff.map((r) => r.ncm);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^\d{4}\.\d{2}\.\d{2}$/);
  });

  it('gives every row Spanish and English descriptions, keywords and a duty from 0 to 35', () => {
    for (const r of builtinTariff) {
      expect(r.description.length, r.ncm).toBeGreaterThan(3);
      expect(r.description_en?.length, r.ncm).toBeGreaterThan(3);
      expect(r.keywords?.length, r.ncm).toBeGreaterThan(0);
      expect(r.duty_rate, r.ncm).toBeGreaterThanOrEqual(0);
      expect(r.duty_rate, r.ncm).toBeLessThanOrEqual(35);
    }
  });

  it('holds the fallback row', () => {
    expect(findRow(builtinTariff, defaultFallbackNcm)).toBeDefined();
  });

  it('round-trips through the CSV import format', () => {
    const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const csv = ['ncm,description,duty_rate,description_en,keywords', ...builtinTariff.map((r) => [r.ncm, quote(r.description), r.duty_rate, quote(r.description_en ?? ''), quote((r.keywords ?? []).join(';'))].join(','))].join('\n');
    const { rows, errors } = parseTariffCsv(csv);
    expect(errors).toEqual([]);
    // The duty source is not a column: an imported row's source is the operator's table itself.
    expect(rows).toEqual(builtinTariff.map(({ duty_source: _source, ...row }) => row));
  });
});
