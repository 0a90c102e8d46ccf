import { describe, expect, it } from 'vitest';
import { contractProblem, type Answer } from '../../support/contract';

/** The integration suite's contract check (test/support/contract.ts) refuses what breaks the document. */
const answer = (status: number, body: unknown, type = 'application/json'): Answer => ({
  status,
  headers: new Headers({ 'content-type': type }),
  body,
  text: JSON.stringify(body),
});
const health = { success: true, data: { status: 'ok', stage: 'local', time: '2026-11-24T10:00:00.000Z' } };

describe('the contract check', () => {
  it('passes an answer that matches its declared schema', () => {
    expect(contractProblem('GET', '/health', answer(200, health))).toBeUndefined();
  });

  it('names a field the schema does not declare', () => {
    expect(contractProblem('GET', '/health', answer(200, { ...health, data: { ...health.data, extra: 1 } }))).toMatch(/Health 200: .*additional properties.*extra/);
  });

  it('names a field of the wrong type, and a timestamp that is not ISO 8601', () => {
    expect(contractProblem('GET', '/health', answer(200, { ...health, data: { ...health.data, status: 1 } }))).toMatch(/\/data\/status/);
    expect(contractProblem('GET', '/health', answer(200, { ...health, data: { ...health.data, time: 'yesterday' } }))).toMatch(/\/data\/time must match format "date-time"/);
  });

  it('refuses a status the route does not declare, and an error code its status does not list', () => {
    expect(contractProblem('GET', '/v1/orders/1', answer(418, { success: false, message: 'x', error: 'teapot' }))).toMatch(/status 418 is not declared/);
    expect(contractProblem('GET', '/v1/orders/1', answer(404, { success: false, message: 'x', error: 'manifest_closed' }))).toMatch(/\/error must be equal to one of the allowed values/);
    expect(contractProblem('GET', '/v1/orders/1', answer(404, { success: false, message: 'Order 1 not found.', error: 'not_found' }))).toBeUndefined();
  });

  it('refuses a content type the answer does not declare', () => {
    expect(contractProblem('GET', '/v1/shipping/shipments/1/label', answer(200, {}, 'text/html'))).toMatch(/came as text\/html, declared application\/pdf/);
  });
});
