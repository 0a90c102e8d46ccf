/**
 * The broker's review of many documents at once (issue 40): validate, approve in one step where the
 * workflow allows, reject with one reason, each document's outcome answered and a retry harmless.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { multipart, pdf } from '#support/files';
import { recordEvents } from '#support/events';

const t = useTwin();
const events = recordEvents();
let partner: { token: string };
let broker: { token: string };

async function upload(awb: string): Promise<number> {
  const form = await multipart({ document_type: 'awb', awb_number: awb }, { name: `${awb}.pdf`, data: pdf(awb) });
  const res = await t.call('POST', '/v1/transport/documents/upload', { token: partner.token, raw: form.body, headers: { 'content-type': form.contentType } });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

const review = (body: unknown, token = broker.token) => t.call('POST', '/v1/transport/documents/review', { token, body });
const stateOf = async (id: number) => (await t.call('GET', `/v1/transport/documents/${id}`, { token: broker.token })).body.data.state;

beforeAll(async () => {
  partner = await t.account('Bulk Docs Courier');
  broker = await t.account('Bulk Docs Broker', { kind: 'broker' });
});

describe('POST /v1/transport/documents/review', () => {
  it('validates and approves many documents in one step, each with its own events, and a retry answers already', async () => {
    const ids = [await upload('300-00000001'), await upload('300-00000002'), await upload('300-00000003')];
    const res = await review({ action: 'validate_and_approve', ids, notes: 'Vuelo AR1140 completo' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ done: 3, already: 0, refused: 0, not_found: 0 });
    for (const id of ids) expect(await stateOf(id)).toBe('approved');
    for (const id of ids) {
      expect(events.some((e) => e.type === 'document.validated' && (e.data as { id: number }).id === id)).toBe(true);
      expect(events.some((e) => e.type === 'document.approved' && (e.data as { id: number }).id === id)).toBe(true);
    }
    const again = await review({ action: 'validate_and_approve', ids, notes: 'Vuelo AR1140 completo' });
    expect(again.body.data).toMatchObject({ done: 0, already: 3 });
  });

  it('refuses to approve what is not validated, saying to validate first, and goes on with the others', async () => {
    const uploaded = await upload('300-00000004');
    const validated = await upload('300-00000005');
    await review({ action: 'validate', ids: [validated] });
    const res = await review({ action: 'approve', ids: [uploaded, validated, 999999] });
    expect(res.body.data.results).toEqual([
      { id: uploaded, outcome: 'refused', state: 'uploaded', message: expect.stringMatching(/validate/i) },
      { id: validated, outcome: 'done', state: 'approved', message: null },
      { id: 999999, outcome: 'not_found', state: null, message: 'Document not found.' },
    ]);
  });

  it('rejects many with one reason, and refuses those already approved', async () => {
    const ids = [await upload('300-00000006'), await upload('300-00000007')];
    await review({ action: 'validate_and_approve', ids: [ids[1]] });
    const res = await review({ action: 'reject', ids, reason: 'Ilegible' });
    expect(res.body.data.results.map((r: { outcome: string }) => r.outcome)).toEqual(['done', 'refused']);
    const doc = (await t.call('GET', `/v1/transport/documents/${ids[0]}`, { token: broker.token })).body.data;
    expect(doc).toMatchObject({ state: 'rejected', rejection_reason: 'Ilegible' });
  });

  it('answers 422 naming the field for a reject without reason, repeated or too many ids and an unknown action; 403 to a partner', async () => {
    expect((await review({ action: 'reject', ids: [1] })).body.errors).toHaveProperty('reason');
    expect((await review({ action: 'validate', ids: [1, 1] })).body.errors).toHaveProperty('ids');
    expect((await review({ action: 'validate', ids: Array.from({ length: 101 }, (_, i) => i + 1) })).body.errors).toHaveProperty('ids');
    expect((await review({ action: 'validate', ids: [] })).body.errors).toHaveProperty('ids');
    expect((await review({ action: 'destroy', ids: [1] })).body.errors).toHaveProperty('action');
    expect((await review({ action: 'validate', ids: [1] }, partner.token)).status).toBe(403);
  });
});
