import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { route } from '#http/kit/route';
import { ok } from '#http/kit/reply';
import { answerMaxBytes } from '#http/kit/route-core';
import { logger } from '#shared/logger';
import { apiEvent } from '#twin/api-events';
import { useLogLines } from '#support/logs';

const lines = useLogLines();
/** Each invocation has its context (the kit writes the request id on it). */
const context = () => ({ awsRequestId: 'lambda-req-1' }) as Context;
const call = (headers: Record<string, string> = {}) =>
  apiEvent({ method: 'GET', url: new URL('http://localhost/api/health'), headers, body: Buffer.alloc(0), sourceIp: '127.0.0.1' }, 'GET /api/health', {});

describe("a request's log lines", () => {
  it('carry the request id on the lines the handler and its services log, not only on the access log', async () => {
    const handler = route({ public: true }, async () => {
      await new Promise((r) => setTimeout(r, 1));
      logger.warn('carrier slow');
      return ok({ status: 'ok' });
    });
    const res = await handler(call({ 'x-request-id': 'partner-req-12345' }), context());
    expect(res.headers?.['X-Request-Id']).toBe('partner-req-12345');
    expect(lines.find((l) => l.message === 'carrier slow')).toMatchObject({ level: 'WARN', requestId: 'partner-req-12345', route: 'GET /api/health' });
    expect(lines.find((l) => l.message === 'request')).toMatchObject({ requestId: 'partner-req-12345', status: 200 });
  });

  it('keep the request id of each of two requests handled side by side to its own lines', async () => {
    const handler = route({ public: true }, async ({ headers }) => {
      await new Promise((r) => setTimeout(r, headers['x-request-id'] === 'first-request-1' ? 20 : 0));
      logger.warn(`worked ${headers['x-request-id']}`);
      return ok(null);
    });
    await Promise.all([handler(call({ 'x-request-id': 'first-request-1' }), context()), handler(call({ 'x-request-id': 'second-request-2' }), context())]);
    const worked = lines.filter((l) => l.message.startsWith('worked')).map((l) => [l.message, l.requestId]);
    expect(worked).toEqual([
      ['worked second-request-2', 'second-request-2'],
      ['worked first-request-1', 'first-request-1'],
    ]);
  });

  it('carry the ids the path named (the document, batch or order asked for) on the lines of its work', async () => {
    const handler = route({ public: true }, async () => {
      logger.warn('storage slow');
      return ok(null);
    });
    const event = apiEvent(
      { method: 'GET', url: new URL('http://localhost/api/v1/transport/documents/doc_123'), headers: {}, body: Buffer.alloc(0), sourceIp: '127.0.0.1' },
      'GET /api/v1/transport/documents/{id}',
      { id: 'doc_123' },
    );
    await handler(event, context());
    expect(lines.find((l) => l.message === 'storage slow')).toMatchObject({ route: 'GET /api/v1/transport/documents/{id}', ids: { id: 'doc_123' }, requestId: expect.any(String) });
  });
});

describe('an answer', () => {
  it('over what Lambda may answer (6 MB) is a 500 with its request id and a logged error, never a bare 502; one under it goes out whole', async () => {
    const sized = (n: number) => route({ public: true }, async () => ok({ text: 'x'.repeat(n) }));
    const under = await sized(answerMaxBytes - 100)(call(), context());
    expect(under.statusCode).toBe(200);
    expect(Buffer.byteLength(under.body!)).toBeLessThanOrEqual(answerMaxBytes);
    const over = await sized(answerMaxBytes + 1)(call({ 'x-request-id': 'too-big-answer-1' }), context());
    expect(over.statusCode).toBe(500);
    expect(JSON.parse(over.body!)).toEqual({ success: false, message: 'Internal server error.', error: 'internal_error', request_id: 'too-big-answer-1' });
    expect(lines.find((l) => l.level === 'ERROR' && l.message === 'unhandled error')).toMatchObject({ requestId: 'too-big-answer-1' });
  });
});
