import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { commands, run } from '#bin/cli';

interface Recorded {
  method: string;
  url: string;
  authorization?: string;
  contentType?: string;
  body?: unknown;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const adminToken = 'dsp_operator-secret-value-0123456789';
const newToken = 'dsp_brand-new-token-value-abcdefghij';

const account = { id: 7, name: 'Courier SA', kind: 'partner', created_at: '2026-11-20T10:00:00.000Z', updated_at: '2026-11-20T10:00:00.000Z' };
const tokenRecord = {
  id: 12,
  account_id: 7,
  name: 'ci',
  role: 'partner',
  scopes: ['orders:read'],
  created_at: '2026-11-20T10:01:00.000Z',
  last_used_at: null,
  revoked_at: null,
  active: true,
};

/** Answers like the admin API; a test may replace the answer for its own scenario. */
function apiAnswer(req: Recorded): Answer {
  const path = req.url.split('?')[0];
  if (req.method === 'POST' && path === '/api/v1/admin/accounts') return { status: 201, body: { success: true, message: 'Account created.', data: account } };
  if (req.method === 'GET' && path === '/api/v1/admin/accounts') {
    return { status: 200, body: { success: true, data: [account, { ...account, id: 8, name: 'Aduana Broker SRL', kind: 'broker' }], count: 2 } };
  }
  if (req.method === 'POST' && path === '/api/v1/admin/tokens') {
    return { status: 201, body: { success: true, message: 'Token created. Store it now: it is not shown again.', data: { ...tokenRecord, token: newToken } } };
  }
  if (req.method === 'GET' && path === '/api/v1/admin/tokens') return { status: 200, body: { success: true, data: [tokenRecord], count: 1 } };
  if (req.method === 'DELETE' && path === '/api/v1/admin/tokens/12') {
    return { status: 200, body: { success: true, message: 'Token revoked.', data: { ...tokenRecord, active: false, revoked_at: '2026-11-20T11:00:00.000Z' } } };
  }
  if (req.method === 'GET' && path === '/api/v1/me') {
    return { status: 200, body: { success: true, data: { account: { ...account, id: 1, name: 'Operator', kind: 'operator' }, token: { id: 1, role: 'admin', scopes: [] } } } };
  }
  return { status: 404, body: { success: false, message: 'Not found.', error: 'not_found' } };
}

let server: Server;
let baseUrl: string;
let requests: Recorded[];
let answer: (req: Recorded) => Answer;

async function record(req: IncomingMessage): Promise<Recorded> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  return {
    method: req.method!,
    url: req.url!,
    authorization: req.headers.authorization,
    contentType: req.headers['content-type'],
    body: raw ? JSON.parse(raw) : undefined,
  };
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const r = await record(req);
    requests.push(r);
    const a = answer(r);
    res.writeHead(a.status, { 'Content-Type': 'application/json', 'X-Request-Id': 'req-test-0001', ...a.headers });
    res.end(JSON.stringify(a.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  requests = [];
  answer = apiAnswer;
});

/** Runs the CLI against the test server with the operator token in the environment. */
async function cli(argv: string[], env: Record<string, string | undefined> = { DESPACHO_URL: baseUrl, DESPACHO_TOKEN: adminToken }) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    fetch,
    env,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe('operator CLI requests', () => {
  it('accounts create posts the name and kind with the bearer token', async () => {
    const { code, stdout } = await cli(['accounts', 'create', '--name', 'Courier SA', '--kind', 'partner']);
    expect(code).toBe(0);
    expect(requests).toEqual([
      { method: 'POST', url: '/api/v1/admin/accounts', authorization: `Bearer ${adminToken}`, contentType: 'application/json', body: { name: 'Courier SA', kind: 'partner' } },
    ]);
    expect(stdout).toContain('Account created.');
    expect(stdout).toMatch(/id:\s+7/);
  });

  it('refuses an http API URL of another machine before any request (the token would travel in clear), and takes https or http to localhost', async () => {
    for (const url of ['http://api.example.com/api', 'http://10.0.0.5:3000/api', 'ftp://api.example.com']) {
      const { code, stderr } = await cli(['accounts', 'list'], { DESPACHO_URL: url, DESPACHO_TOKEN: adminToken });
      expect(code, url).toBe(2);
      expect(stderr, url).toMatch(/travel in clear|must be a URL/);
    }
    expect(requests).toEqual([]);
    const { code } = await cli(['accounts', 'list'], { DESPACHO_URL: baseUrl.replace('127.0.0.1', 'localhost'), DESPACHO_TOKEN: adminToken });
    expect(code).toBe(0);
  });

  it('accounts list prints one aligned row per account and the count', async () => {
    const { code, stdout } = await cli(['accounts', 'list']);
    expect(code).toBe(0);
    expect(requests[0]).toMatchObject({ method: 'GET', url: '/api/v1/admin/accounts', authorization: `Bearer ${adminToken}`, body: undefined });
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+KIND\s+CREATED$/);
    expect(lines[1]).toMatch(/^7\s+Courier SA\s+partner\s+2026-11-20T10:00:00.000Z$/);
    expect(lines[2]).toMatch(/^8\s+Aduana Broker SRL\s+broker\s+/);
    expect(lines[1].indexOf('partner')).toBe(lines[0].indexOf('KIND'));
    expect(lines[2].indexOf('broker')).toBe(lines[0].indexOf('KIND'));
    expect(lines.at(-1)).toBe('2 accounts');
  });

  it('accounts tariff-consent puts the consent as a boolean, and refuses anything but yes or no before any request', async () => {
    answer = () => ({
      status: 200,
      body: { success: true, message: 'Consent recorded: its decisions may be exported.', data: { ...account, shares_tariff_decisions: true, tariff_consent_at: '2026-12-06T10:00:00.000Z' } },
    });
    const { code, stdout } = await cli(['accounts', 'tariff-consent', '7', '--share', 'yes', '--reference', 'Agreement 114']);
    expect(code).toBe(0);
    expect(requests).toEqual([
      { method: 'PUT', url: '/api/v1/admin/accounts/7/tariff-consent', authorization: `Bearer ${adminToken}`, contentType: 'application/json', body: { share_decisions: true, reference: 'Agreement 114' } },
    ]);
    expect(stdout).toContain('account 7 (Courier SA): shares its tariff decisions, recorded 2026-12-06T10:00:00.000Z');
    const refused = await cli(['accounts', 'tariff-consent', '7', '--share', 'maybe']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--share must be yes or no');
    expect(requests).toHaveLength(1);
  });

  it('tariff decisions follows the cursor to the end and prints one header and one tab-separated labeled item per decision', async () => {
    const decision = (n: number) => ({
      source: 'broker-decision',
      doc_id: `bat_1/AWB${n}/r${n}`,
      date: '2026-12-01',
      hs6: '420292',
      ncm_code: '4202.92.00',
      description: `Mochila\turbana ${n}`,
      declared_code: null,
      product_link: n === 1 ? 'https://shop.example.com/p/1' : null,
    });
    answer = (req) => {
      const second = req.url.includes('cursor=');
      return {
        status: 200,
        body: { success: true, data: [decision(second ? 2 : 1)], meta: { account_id: 7, per_page: 500, cursor: second ? 'c1' : null, next_cursor: second ? null : 'c1' } },
      };
    };
    const { code, stdout } = await cli(['tariff', 'decisions', '7']);
    expect(code).toBe(0);
    expect(requests.map((r) => r.url)).toEqual(['/api/v1/admin/accounts/7/tariff-decisions?per_page=500', '/api/v1/admin/accounts/7/tariff-decisions?per_page=500&cursor=c1']);
    expect(stdout.split('\n')).toEqual([
      'source\tdoc_id\tdate\tlang\ths6\tdescription\tncm_code\tdeclared_code\tproduct_link',
      'broker-decision\tbat_1/AWB1/r1\t2026-12-01\t\t420292\tMochila urbana 1\t4202.92.00\t\thttps://shop.example.com/p/1',
      'broker-decision\tbat_1/AWB2/r2\t2026-12-01\t\t420292\tMochila urbana 2\t4202.92.00\t\t',
      '',
    ]);
  });

  it('tokens create sends the account id as a number and the scopes as a list', async () => {
    const { code } = await cli(['tokens', 'create', '--account-id', '7', '--name', 'ci', '--role', 'partner', '--scopes', 'orders:read, orders:write']);
    expect(code).toBe(0);
    expect(requests[0]).toEqual({
      method: 'POST',
      url: '/api/v1/admin/tokens',
      authorization: `Bearer ${adminToken}`,
      contentType: 'application/json',
      body: { account_id: 7, name: 'ci', role: 'partner', scopes: ['orders:read', 'orders:write'] },
    });
  });

  it('tokens create sends --expires-at as expires_at and prints it', async () => {
    answer = (req) =>
      req.method === 'POST'
        ? { status: 201, body: { success: true, message: 'Token created.', data: { ...tokenRecord, expires_at: '2027-06-30T18:00:00.000Z', token: newToken } } }
        : apiAnswer(req);
    const { code, stdout } = await cli(['tokens', 'create', '--account-id', '7', '--name', 'ci', '--role', 'partner', '--expires-at', '2027-06-30T15:00:00-03:00']);
    expect(code).toBe(0);
    expect(requests[0].body).toEqual({ account_id: 7, name: 'ci', role: 'partner', expires_at: '2027-06-30T15:00:00-03:00' });
    expect(stdout).toMatch(/^expires: 2027-06-30T18:00:00.000Z$/m);
  });

  it('tokens create without --scopes leaves them to the role, and --scopes none asks for none', async () => {
    await cli(['tokens', 'create', '--account-id', '7', '--name', 'ci', '--role', 'broker']);
    expect(requests[0].body).toEqual({ account_id: 7, name: 'ci', role: 'broker' });
    await cli(['tokens', 'create', '--account-id', '7', '--name', 'ci', '--role', 'broker', '--scopes', 'none']);
    expect(requests[1].body).toEqual({ account_id: 7, name: 'ci', role: 'broker', scopes: [] });
  });

  it('tokens create prints the new token value exactly once, with a shown-once warning', async () => {
    const { code, stdout, stderr } = await cli(['tokens', 'create', '--account-id', '7', '--name', 'ci', '--role', 'partner']);
    expect(code).toBe(0);
    expect(occurrences(stdout + stderr, newToken)).toBe(1);
    expect(stdout).toMatch(/shown once/i);
    expect(stdout).toMatch(new RegExp(`^  ${newToken}$`, 'm'));
  });

  it('tokens list asks for every token when no account is given', async () => {
    const { code, stdout } = await cli(['tokens', 'list']);
    expect(code).toBe(0);
    expect(requests[0]).toMatchObject({ method: 'GET', url: '/api/v1/admin/tokens' });
    expect(stdout).toMatch(/^ID\s+ACCOUNT\s+NAME\s+ROLE\s+SCOPES\s+ACTIVE\s+EXPIRES\s+LAST USED\s+CREATED$/m);
    expect(stdout).toMatch(/^12\s+7\s+ci\s+partner\s+orders:read\s+yes\s+-\s+-\s+2026-11-20T10:01:00.000Z$/m);
    expect(stdout).toContain('1 token\n');
  });

  it('tokens list filters by account when --account-id is given', async () => {
    await cli(['tokens', 'list', '--account-id', '7']);
    expect(requests[0]).toMatchObject({ method: 'GET', url: '/api/v1/admin/tokens?account_id=7', authorization: `Bearer ${adminToken}` });
  });

  it('tokens revoke deletes the token by its id', async () => {
    const { code, stdout } = await cli(['tokens', 'revoke', '12']);
    expect(code).toBe(0);
    expect(requests[0]).toMatchObject({ method: 'DELETE', url: '/api/v1/admin/tokens/12', authorization: `Bearer ${adminToken}`, body: undefined });
    expect(stdout).toContain('Token revoked.');
    expect(stdout).toMatch(/revoked:\s+2026-11-20T11:00:00.000Z/);
  });

  it('whoami reads /v1/me and shows the account, role and scopes', async () => {
    const { code, stdout } = await cli(['whoami']);
    expect(code).toBe(0);
    expect(requests[0]).toMatchObject({ method: 'GET', url: '/api/v1/me', authorization: `Bearer ${adminToken}` });
    expect(stdout).toMatch(/account:\s+1 Operator \(operator\)/);
    expect(stdout).toMatch(/role:\s+admin/);
  });

  it('--url and --token override the environment', async () => {
    const { code } = await cli(['whoami', '--url', `${baseUrl}/`, '--token', 'dsp_from-the-command-line-0001'], { DESPACHO_URL: 'http://127.0.0.1:1/api', DESPACHO_TOKEN: adminToken });
    expect(code).toBe(0);
    expect(requests[0]).toMatchObject({ url: '/api/v1/me', authorization: 'Bearer dsp_from-the-command-line-0001' });
  });

  it('falls back to ADMIN_TOKEN when DESPACHO_TOKEN is not set', async () => {
    await cli(['whoami'], { DESPACHO_URL: baseUrl, ADMIN_TOKEN: adminToken });
    expect(requests[0].authorization).toBe(`Bearer ${adminToken}`);
  });

  it('--json prints the raw response body', async () => {
    const { code, stdout } = await cli(['accounts', 'list', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(apiAnswer({ method: 'GET', url: '/api/v1/admin/accounts' }).body);
  });
});

describe('operator CLI failures', () => {
  it('a 422 answer exits 1 and prints the status, message and field errors to stderr', async () => {
    answer = () => ({ status: 422, body: { success: false, message: 'The given data was invalid.', error: 'validation_failed', errors: { account_id: ['No account has this id.'] } } });
    const { code, stdout, stderr } = await cli(['tokens', 'create', '--account-id', '99', '--name', 'ci', '--role', 'partner']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('HTTP 422');
    expect(stderr).toContain('The given data was invalid.');
    expect(stderr).toContain('account_id: No account has this id.');
    expect(stderr).toContain('req-test-0001');
  });

  it('a 429 answer shows when to retry', async () => {
    answer = () => ({ status: 429, body: { success: false, message: 'Rate limit exceeded.', error: 'rate_limited' }, headers: { 'Retry-After': '42' } });
    const { code, stderr } = await cli(['accounts', 'list']);
    expect(code).toBe(1);
    expect(stderr).toContain('retry after: 42 s');
  });

  it('an unreachable service exits 1 and names the URL', async () => {
    const { code, stderr } = await cli(['accounts', 'list'], { DESPACHO_URL: 'http://127.0.0.1:1/api', DESPACHO_TOKEN: adminToken });
    expect(code).toBe(1);
    expect(stderr).toContain('cannot reach http://127.0.0.1:1/api');
  });

  it('an unknown command exits 2 and names it', async () => {
    const { code, stderr } = await cli(['batches', 'explode']);
    expect(code).toBe(2);
    expect(stderr).toContain("Unknown command 'batches explode'");
    expect(requests).toEqual([]);
  });

  it('a command group without its subcommand exits 2 and lists the subcommands', async () => {
    const { code, stderr } = await cli(['tokens']);
    expect(code).toBe(2);
    expect(stderr).toContain('create, list, revoke');
  });

  it('a missing required option exits 2 and names the option', async () => {
    const { code, stderr } = await cli(['accounts', 'create', '--name', 'Courier SA']);
    expect(code).toBe(2);
    expect(stderr).toContain('--kind');
    expect(requests).toEqual([]);
  });

  it('a missing positional argument exits 2 and names it', async () => {
    const { code, stderr } = await cli(['tokens', 'revoke']);
    expect(code).toBe(2);
    expect(stderr).toContain('<id>');
  });

  it('an option the command does not know exits 2 and names it', async () => {
    const { code, stderr } = await cli(['accounts', 'list', '--kind', 'broker']);
    expect(code).toBe(2);
    expect(stderr).toContain('--kind');
    expect(requests).toEqual([]);
  });

  it('an account id that is not a positive integer exits 2 before any request', async () => {
    const { code, stderr } = await cli(['tokens', 'list', '--account-id', 'seven']);
    expect(code).toBe(2);
    expect(stderr).toContain('--account-id must be a positive integer');
    expect(requests).toEqual([]);
  });

  it('no token at all exits 2 and says where to set one', async () => {
    const { code, stderr } = await cli(['whoami'], { DESPACHO_URL: baseUrl });
    expect(code).toBe(2);
    expect(stderr).toContain('DESPACHO_TOKEN');
    expect(requests).toEqual([]);
  });
});

describe('operator CLI secrecy and help', () => {
  it('never prints the token passed with --token, even when the service echoes it back', async () => {
    const secret = 'dsp_never-print-me-0123456789abcdef';
    answer = (req) => ({ status: 401, body: { success: false, message: `Rejected ${req.authorization}`, errors: { token: [secret] } } });
    const outputs = [
      await cli(['whoami', '--token', secret, '--url', baseUrl], {}),
      await cli(['whoami', '--token', secret, '--url', baseUrl, '--json'], {}),
      await cli(['tokens', 'revoke', 'x', '--token', secret, '--url', baseUrl], {}),
      await cli(['accounts', 'list', '--bogus', '--token', secret], {}),
      await cli(['accounts', 'list', '--token', secret, '--url', 'http://127.0.0.1:1/api'], {}),
    ];
    expect(requests.map((r) => r.authorization)).toEqual([`Bearer ${secret}`, `Bearer ${secret}`]);
    for (const { stdout, stderr } of outputs) expect(stdout + stderr).not.toContain(secret);
  });

  it('help lists every command and global option', async () => {
    for (const argv of [[], ['help'], ['--help']]) {
      const { code, stdout } = await cli(argv);
      expect(code).toBe(0);
      for (const c of commands) expect(stdout).toContain(c.name);
      for (const o of ['--url', '--token', '--json']) expect(stdout).toContain(o);
    }
  });

  it('a command with --help shows its own usage without calling the service', async () => {
    const { code, stdout } = await cli(['tokens', 'create', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('--account-id <id>');
    expect(stdout).not.toContain('accounts list');
    expect(requests).toEqual([]);
  });
});
