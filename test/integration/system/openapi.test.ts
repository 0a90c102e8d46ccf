import { run } from '#support/run';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#lib/functions';
import { onPath, toolAvailable } from '#support/tools';
import { useTwin } from '#support/twin';

/**
 * The document GET /api/openapi.json serves, checked by the reference validators: the machine's
 * Python openapi-spec-validator (see docs/partners/api-reference.md), as cfn-lint is for the stacks.
 */
const t = useTwin();

/** Writes the served document to a file of its own and runs `command` on it. */
async function runOn(command: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; output: string }> {
  const doc = await t.call('GET', '/openapi.json', { token: null });
  expect(doc.status).toBe(200);
  const dir = mkdtempSync(join(tmpdir(), 'despacho-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, doc.text);
    // Not spawnSync: a blocked event loop lets the twin's keep-alive timer close the test client's
    // pooled connection under the next request (ECONNRESET).
    const ran = await run(command, [...args, file], { timeout: 150_000, env: { ...process.env, ...env } });
    return { status: ran.status, output: `${ran.stdout}${ran.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const validatable = toolAvailable('openapi-spec-validator', 'openapi-spec-validator on GET /api/openapi.json');

describe('the OpenAPI document', () => {
  // The two reference validators run side by side (issue 45): each is a child process of its own on
  // a file of its own, and the Python validator alone takes about 20 s of CPU.
  it.skipIf(!validatable).concurrent('passes openapi-spec-validator as OpenAPI 3.1', async ({ expect }) => {
    if (!onPath('openapi-spec-validator')) {
      throw new Error('openapi-spec-validator is not on the PATH, and CI_REQUIRE_CLOUD_TOOLS=1 requires it (pip install openapi-spec-validator)');
    }
    const { status, output } = await runOn('openapi-spec-validator', ['--schema', '3.1']);
    expect(output.trim()).toMatch(/: OK$/);
    expect(status).toBe(0);
  }, 180_000);

  it.concurrent('passes @redocly/cli lint with the committed ruleset (redocly.yaml: recommended-strict)', async ({ expect }) => {
    const redocly = join(projectRoot, 'node_modules', '.bin', 'redocly');
    // No telemetry and no update check: the tests run offline.
    const { status, output } = await runOn(redocly, ['lint', '--config', join(projectRoot, 'redocly.yaml'), '--format', 'stylish'], {
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    });
    expect(output).toContain('Your API description is valid');
    expect(status, output).toBe(0);
  }, 180_000);

  it('declares every parameter of every path template, the dashboard asset included', async () => {
    const doc = (await t.call('GET', '/openapi.json', { token: null })).body;
    const asset = doc.paths['/dashboard/{asset}'].get.parameters;
    expect(asset).toEqual([{ name: 'asset', in: 'path', required: true, schema: { type: 'string' }, example: 'app.js' }]);
    for (const [path, item] of Object.entries<Record<string, { parameters: { name: string; in: string }[] }>>(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const [method, op] of Object.entries(item)) {
        expect(op.parameters.filter((p) => p.in === 'path').map((p) => p.name).sort(), `${method} ${path}`).toEqual(names);
      }
    }
  });

  it('declares each success body, the failures with their codes, scopes per operation, X-Signature and the webhooks', async () => {
    const doc = (await t.call('GET', '/openapi.json', { token: null })).body;
    const json = (op: any, status: string) => op.responses[status].content['application/json'].schema;
    const submit = doc.paths['/api/v1/couriers/{courier}/manifests/webhook'].post;
    expect(submit.responses['423']).toBeDefined();
    expect(json(submit, '422').properties.error.enum).toEqual(expect.arrayContaining(['validation_failed', 'unknown_batch']));
    expect(json(submit, '423').properties.error.enum).toEqual(['manifest_closed']);
    expect(json(submit, '423').properties).toHaveProperty('closed_at');
    expect(submit.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['Idempotency-Key', 'X-Signature']));
    expect(Object.keys(submit.responses['200'].headers)).toContain('Idempotent-Replayed');
    expect(Object.keys(submit.responses['429'].headers)).toContain('Retry-After');

    const download = doc.paths['/api/v1/couriers/manifests/{manifest}/download'].get;
    expect(json(download, '409').properties.error.enum).toEqual(['processing_incomplete']);
    expect(Object.keys(download.responses['200'].content)).toEqual(expect.arrayContaining(['application/json', 'text/csv']));
    expect(download.responses['303'].headers).toHaveProperty('Location');

    const order = doc.paths['/api/v1/orders/{id}'].get;
    expect(order.security).toEqual([{ bearer: ['orders:read'] }]);
    const data = json(order, '200').properties.data;
    expect(data.required).toEqual(expect.arrayContaining(['id', 'order_number', 'shipments', 'timeline', 'totals']));
    expect(data.additionalProperties).toBe(false);
    expect(Object.keys(order.responses['200'].headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
    expect(doc.paths['/api/health'].get.security).toEqual([]);

    const event = doc.webhooks['manifest.total_due'].post;
    expect(event.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['X-Service-Signature', 'X-Service-Timestamp']));
    const envelope = event.requestBody.content['application/json'].schema;
    expect(envelope.required).toEqual(['id', 'type', 'created_at', 'data']);
    expect(envelope.properties.data.required).toEqual(expect.arrayContaining(['manifest_number', 'amount_to_pay', 'currency']));
  });
});
