import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mockClient } from 'aws-sdk-client-mock';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { adminToken, useTwin } from '#support/twin';
import { run } from '#bin/cli';
import { builtinTariff } from '#core/tariff/builtin';
import { readTariffRows } from '#infra/entities/tariff';
import { forgetTariffTable, loadTariffTable } from '#infra/tariff/table-source';
import { tariffClassifier } from '#infra/tariff/classifier-port';
import { calibratedAi } from '#core/tariff/calibration';

const t = useTwin();
const dir = mkdtempSync(join(tmpdir(), 'tariff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const csv = (...rows: string[]) => ['ncm,description,duty_rate,description_en,keywords', ...rows].join('\n') + '\n';
const good = csv(
  '8517.13.00,Teléfonos inteligentes,16,Smartphones,celular;smartphone;fonito',
  '6109.10.00,"Camisetas, de punto, de algodón",35,T-shirts,remera;camiseta',
  '95030099,Los demás juguetes,35,Other toys,juguete',
);
const putCsv = (body: string, token: string | null = adminToken) =>
  t.call('PUT', '/v1/admin/tariff', { raw: body, headers: { 'content-type': 'text/csv' }, token });

function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io = {
    env: { DESPACHO_URL: t.twin.apiUrl, DESPACHO_TOKEN: adminToken },
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  };
  return run(argv, io).then((code) => ({ code, stdout, stderr }));
}

describe('the tariff table import', () => {
  it('serves the built-in table until a table is imported', async () => {
    const res = await t.call('GET', '/v1/admin/tariff');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ source: 'builtin', rows: builtinTariff.length, version: null, imported_at: null, classifier: 'offline' });
  });

  it('refuses a file with bad lines, listing them by number, and stores nothing', async () => {
    const res = await putCsv(csv('8517.13.00,Teléfonos,16,,', '8517.13,Corto,16,,', '6109.10.00,Remeras,99,,', '9503.00.99,Juguetes,35,,'));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, error: 'validation_failed', message: '2 lines are invalid; nothing was stored.' });
    expect(Object.keys(res.body.errors)).toEqual(['line 3', 'line 4']);
    expect(res.body.errors['line 3'][0]).toContain('must be 8 digits');
    expect(res.body.errors['line 4'][0]).toContain('duty_rate');
    expect((await t.call('GET', '/v1/admin/tariff')).body.data.source).toBe('builtin');
  });

  it('imports a valid file and shows it as the table in force', async () => {
    const res = await putCsv(good);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'Tariff table imported: 3 rows.', data: { source: 'imported', rows: 3, replaced_version: null } });
    const shown = await t.call('GET', '/v1/admin/tariff');
    expect(shown.body.data).toMatchObject({ source: 'imported', rows: 3, version: res.body.data.version, imported_at: res.body.data.imported_at });
    expect(shown.body.data.imported_by).toMatch(/^\d+ /);

    forgetTariffTable();
    const table = await loadTariffTable();
    expect(table).toMatchObject({ source: 'imported', version: res.body.data.version });
    expect(table.rows.map((r) => r.ncm)).toEqual(['6109.10.00', '8517.13.00', '9503.00.99']);
    expect(table.rows[0]).toEqual({ ncm: '6109.10.00', description: 'Camisetas, de punto, de algodón', duty_rate: 35, description_en: 'T-shirts', keywords: ['remera', 'camiseta'] });
  });

  it('replaces the table whole on the next import and removes the replaced rows', async () => {
    const before = (await t.call('GET', '/v1/admin/tariff')).body.data.version;
    const res = await putCsv(csv('8518.30.00,Auriculares,20,Headphones,auriculares'));
    expect(res.body.data).toMatchObject({ rows: 1, replaced_version: before });
    expect(await readTariffRows(before)).toEqual([]);
    forgetTariffTable();
    expect((await loadTariffTable()).rows.map((r) => r.ncm)).toEqual(['8518.30.00']);
  });

  it('feeds the default classifier, which asks Bedrock when BEDROCK_MODEL_ID is set', async () => {
    await putCsv(good);
    forgetTariffTable();
    expect(await tariffClassifier().classify({ description: 'fonito rojo' })).toMatchObject({ ncm_code: '8517.13.00', source: 'offline' });

    const bedrock = mockClient(BedrockRuntimeClient);
    bedrock.on(ConverseCommand).resolves({ output: { message: { role: 'assistant', content: [{ text: '{"ncm_code":"8517.13.00","confidence":0.88}' }] } } });
    process.env.BEDROCK_MODEL_ID = 'test-model';
    try {
      expect(await tariffClassifier().classify({ description: 'fonito rojo' })).toMatchObject({ ncm_code: '8517.13.00', source: 'ai', confidence: calibratedAi('test-model', 0.88) });
      expect(bedrock.commandCalls(ConverseCommand)[0].args[0].input.modelId).toBe('test-model');
      expect((await t.call('GET', '/v1/admin/tariff')).body.data.classifier).toBe('bedrock');
    } finally {
      delete process.env.BEDROCK_MODEL_ID;
      bedrock.restore();
    }
  });

  it('is done with the CLI: import reports the rows, bad lines are listed, show prints the table', async () => {
    const file = join(dir, 'tariff.csv');
    writeFileSync(file, good);
    const ok = await cli(['tariff', 'import', file]);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toContain('Tariff table imported: 3 rows.');
    expect(ok.stdout).toMatch(/source: +imported/);

    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, csv('8517.13.00,Teléfonos,16,,', 'x,Mal,16,,'));
    const refused = await cli(['tariff', 'import', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('HTTP 422');
    expect(refused.stderr).toContain("line 3: ncm 'x' must be 8 digits");

    const shown = await cli(['tariff', 'show']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/rows: +3/);

    expect((await cli(['tariff', 'import', join(dir, 'missing.csv')])).code).toBe(2);
  });

  it('is for the admin only', async () => {
    const partner = await t.account('Tariff Partner');
    expect((await putCsv(good, partner.token)).status).toBe(403);
    expect((await t.call('GET', '/v1/admin/tariff', { token: partner.token })).status).toBe(403);
    expect((await putCsv(good, null)).status).toBe(401);
  });

  it('takes CSV only', async () => {
    const res = await t.call('PUT', '/v1/admin/tariff', { body: { rows: [] } });
    expect(res.status).toBe(415);
  });
});
