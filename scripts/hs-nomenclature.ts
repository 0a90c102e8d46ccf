/**
 * `npx tsx scripts/hs-nomenclature.ts <harmonized-system.csv>`: writes
 * lambdas/infra/tariff/hs-nomenclature.json, the HS fallback tier's data (a JSON array, one
 * `code<TAB>description` line per entry and per line of the file; hs-nomenclature.ts beside it
 * joins them for the tier), from datahub's HS list
 * (github.com/datasets/harmonized-system, data/harmonized-system.csv: HS 2022 from UN Comtrade,
 * ODC Public Domain Dedication and Licence). Kept: every 4-digit heading and 6-digit subheading,
 * one `code<TAB>description` line each, in code order (without Comtrade's 9999 "not specified").
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [csvPath] = process.argv.slice(2);
if (!csvPath) {
  console.error('usage: tsx scripts/hs-nomenclature.ts <harmonized-system.csv>');
  process.exit(2);
}

/** RFC 4180 fields of one line (the file has no line breaks inside fields). */
function fields(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let f = '';
      i++;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') (f += '"'), (i += 2);
        else if (line[i] === '"') break;
        else f += line[i++];
      }
      out.push(f);
      i += 2;
    } else {
      const end = line.indexOf(',', i);
      out.push(line.slice(i, end < 0 ? line.length : end));
      i = end < 0 ? line.length + 1 : end + 1;
    }
  }
  return out;
}

const lines = readFileSync(csvPath, 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/).filter(Boolean);
const header = fields(lines[0]);
const at = (name: string) => header.indexOf(name);
const kept: string[] = [];
for (const line of lines.slice(1)) {
  const f = fields(line);
  const code = f[at('hscode')];
  const description = f[at('description')].replace(/\s+/g, ' ').trim();
  // Comtrade's 9999/999999 ("commodities not specified according to kind") is a statistical code, not HS.
  if (!/^\d{4}$|^\d{6}$/.test(code) || code.startsWith('9999')) continue;
  kept.push(`${code}\t${description}`);
}
kept.sort();
const out = fileURLToPath(new URL('../lambdas/infra/tariff/hs-nomenclature.json', import.meta.url));
writeFileSync(out, `[\n${kept.map((l) => `  ${JSON.stringify(l)}`).join(',\n')}\n]\n`);
console.log(`${kept.filter((l) => /^\d{6}\t/.test(l)).length} subheadings, ${kept.filter((l) => /^\d{4}\t/.test(l)).length} headings -> ${out}`);
