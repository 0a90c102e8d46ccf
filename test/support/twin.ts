import { answerOf } from './http';
import { checkContract, eventProblem } from './contract';
import { afterAll, beforeAll, inject } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startTwin, type Twin, type TwinOptions } from '#twin/twin';

export const adminToken = 'test-admin-token-0123456789abcdef';

export interface Call {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface TestTwin {
  twin: Twin;
  tableName: string;
  dataDir: string;
  call(method: string, path: string, opts?: { token?: string | null; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> }): Promise<Call>;
  /** POSTs a manifest (or chunk) like `call`, then lets the intake write what it accepted. */
  submit(path: string, opts?: Parameters<TestTwin['call']>[2]): Promise<Call>;
  /** Writes the accepted manifests' items (the intake queue) until none is left, without processing them. */
  intake(): Promise<void>;
  /** Runs every queued job (intake, pipeline, webhooks) until none is due. */
  settle(): Promise<void>;
  /** What was wrong with the events this file's twin published (each is held to openapi.json's webhooks); checked after the file. */
  eventProblems: string[];
  /** A new account of `kind` and a token for it. */
  account(name: string, opts?: { kind?: 'partner' | 'broker'; role?: 'partner' | 'broker' | 'admin'; scopes?: string[] }): Promise<{ accountId: number; token: string; tokenId: number }>;
}

/** Starts a twin for this test file: its own table in the shared DynamoDB Local, its own data dir. */
export function useTwin(opts: Partial<TwinOptions> = {}): TestTwin {
  const ctx = { eventProblems: [] } as unknown as TestTwin;
  beforeAll(async () => {
    ctx.tableName = `t_${randomUUID().slice(0, 8)}`;
    ctx.dataDir = mkdtempSync(join(tmpdir(), 'despacho-'));
    ctx.twin = await startTwin({
      port: 0,
      dataDir: ctx.dataDir,
      tableName: ctx.tableName,
      dynamoEndpoint: inject('dynamoEndpoint'),
      adminToken,
      jobPollMs: 0,
      // Every event published is held to its schema, as every answer is: a mismatch fails the file.
      checkEvent: (e) => {
        const problem = eventProblem(e);
        if (problem) ctx.eventProblems.push(problem);
      },
      ...opts,
    });
  });
  afterAll(async () => {
    await ctx.twin?.stop();
    rmSync(ctx.dataDir, { recursive: true, force: true });
    const problems = [...new Set(ctx.eventProblems)];
    if (problems.length) throw new Error(`Contract: events break openapi.json's webhooks:\n${problems.join('\n')}`);
  });
  ctx.call = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const token = o.token === undefined ? adminToken : o.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | Buffer | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(ctx.twin.apiUrl + path, { method, headers, body });
    const answer = await answerOf(res);
    // Every answer is held to openapi.json: each integration test is a contract test too.
    checkContract(method, path, answer, res.redirected);
    return answer;
  };
  ctx.submit = async (path, o) => {
    const res = await ctx.call('POST', path, o);
    await ctx.intake();
    return res;
  };
  ctx.intake = async () => {
    for (let i = 0; i < 100; i++) if ((await ctx.twin.jobs.runDue(['manifestIntake'])) === 0) return;
    throw new Error('the intake did not settle');
  };
  ctx.settle = async () => {
    for (let i = 0; i < 400; i++) if ((await ctx.twin.jobs.runDue()) === 0) return;
    throw new Error('the queues did not settle');
  };
  ctx.account = async (name, o = {}) => {
    const acc = await ctx.call('POST', '/v1/admin/accounts', { body: { name, kind: o.kind ?? 'partner' } });
    if (acc.status !== 201) throw new Error(`account: ${acc.text}`);
    const tok = await ctx.call('POST', '/v1/admin/tokens', {
      body: { account_id: acc.body.data.id, name: `${name} token`, role: o.role ?? o.kind ?? 'partner', ...(o.scopes ? { scopes: o.scopes } : {}) },
    });
    if (tok.status !== 201) throw new Error(`token: ${tok.text}`);
    return { accountId: acc.body.data.id, token: tok.body.data.token, tokenId: tok.body.data.id };
  };
  return ctx;
}

