import { describe, expect, it } from 'vitest';
import { contractProblem, deliveryProblem, type Answer } from '#support/contract';

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

  it("holds a webhook delivery to its event's envelope, data and signature headers", () => {
    const headers = {
      'x-service-signature': `sha256=${'a'.repeat(64)}`,
      'x-service-timestamp': '1795564742',
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1795564742',
      'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
      'x-service-event': 'manifest.total_due',
      'x-service-delivery': '7',
    };
    const data = { manifest_number: 'M-1', batch_id: 'BT1', mawb_number: 'M-1', amount_to_pay: 12.5, currency: 'USD' };
    const body = (d: unknown) => JSON.stringify({ id: 'evt_1', type: 'manifest.total_due', created_at: '2026-11-24T10:00:00.000Z', data: d });
    expect(deliveryProblem(headers, body(data))).toBeUndefined();
    expect(deliveryProblem(headers, body({ ...data, amount_to_pay: '12.50' }))).toMatch(/\/data\/amount_to_pay must be number/);
    expect(deliveryProblem({ ...headers, 'x-service-signature': undefined }, body(data))).toMatch(/header X-Service-Signature missing/);
    expect(deliveryProblem({ ...headers, 'webhook-signature': undefined }, body(data))).toMatch(/header webhook-signature missing/);
  });
});
