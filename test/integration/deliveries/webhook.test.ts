import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { useReceiver } from '#support/receiver';
import { png } from '#support/files';
import { item, submitForBatch } from '#support/manifests';

const t = useTwin();
const receiver = useReceiver();

describe('delivery.recorded as a webhook', () => {
  it("delivers delivery.recorded to the partner's subscription", async () => {
    const p = await t.account('Courier Hooks');
    const awb = 'AWB7700001';
    const mawb = '045-77000010';
    await submitForBatch(t, p.token, { mawbNumber: mawb, items: [item(7700001, { awbNumber: awb })] });
    const sub = await t.call('POST', '/webhook-subscriptions', { token: p.token, body: { endpoint_url: receiver.url, events: ['delivery.recorded'] } });
    expect(sub.status).toBe(201);
    const res = await t.call('POST', '/v1/deliveries', {
      token: p.token,
      body: { awb_number: awb, delivered_at: '2026-12-06T15:30:00-03:00', recipient_name: 'Ana Pérez', recipient_dni: '30123456', recipient_relation: 'titular', file_base64: png().toString('base64'), file_name: 'firma.png' },
    });
    expect(res.status).toBe(201);
    await t.settle();
    await receiver.until(1);
    const body = JSON.parse(receiver.received[0].body);
    expect(body).toMatchObject({ type: 'delivery.recorded', data: { awb_number: awb, mawb_number: mawb, recipient: { dni: '30123456' } } });
  });
});
