import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminToken, useTwin } from '#support/twin';
import { useReceiver } from '#support/receiver';
import { collectionFile } from '#scripts/generate-postman';
import { recordedAnswersFile, trimmedExample, type RecordedAnswers } from '#scripts/postman-record';
import { runCollection, type Collection } from '#scripts/postman-run';
import { serviceDocument } from '#http/system/openapi';

/**
 * Every request of the committed Postman collection, sent in its order to a fresh twin as
 * Postman's Collection Runner sends them (variables, auth, scripts): each must pass its test, the
 * documented success status. An example the twin refuses fails here.
 * With POSTMAN_RECORD=1 (`npm run postman:record`) it also writes the twin's answers, the
 * examples of openapi.json's responses and of the collection's saved responses.
 */
const t = useTwin();
const receiver = useReceiver();

describe('the Postman collection on its first Send', () => {
  it('runs from top to bottom against a fresh twin, every request answering its documented success status', async () => {
    const partner = await t.account('Andes Courier SA');
    const broker = await t.account('Despachante Uno', { kind: 'broker' });
    const collection = JSON.parse(readFileSync(collectionFile, 'utf8')) as Collection;
    // The receiver turns the first real delivery away, as a receiver that is down would, so the
    // collection's "send one delivery again" has a failed delivery to retry.
    let turnedAway = false;
    receiver.status = (got) => (!turnedAway && !got.body.includes('webhook.test') ? ((turnedAway = true), 503) : 200);
    const steps = await runCollection(
      collection,
      { baseUrl: t.twin.url, bearerToken: partner.token, brokerToken: broker.token, adminToken, webhookUrl: receiver.url },
      // A running twin works its queues by itself; here they are worked to the end after each request.
      { workingDir: dirname(collectionFile), after: () => t.settle() },
    );
    const failed = steps.filter((s) => s.failures.length).map((s) => `${s.name} (${s.method} ${s.url} → ${s.status}): ${s.failures.join('; ')}`);
    expect(failed, failed.join('\n')).toEqual([]);
    expect(steps.length).toBeGreaterThan(100);

    if (process.env.POSTMAN_RECORD) {
      const paths = serviceDocument().paths as Record<string, Record<string, { operationId: string }>>;
      const recorded: RecordedAnswers = { success: {}, failure: {} };
      for (const s of steps) {
        const op = paths[s.template.replace(/:(\w+)/g, '{$1}')][s.method.toLowerCase()];
        const example = trimmedExample(s.headers.get('content-type'), s.text);
        if (example !== undefined && op.operationId !== 'OpenApi') recorded.success[op.operationId] = { status: s.status, body: example };
      }
      // The failures every route shares, as the twin gives them: no token, a body that breaks its schema.
      const unauthorized = await fetch(`${t.twin.apiUrl}/v1/me`);
      recorded.failure[401] = await unauthorized.json();
      const invalid = await t.call('POST', '/webhook-subscriptions', { token: partner.token, body: { endpoint_url: 'not a url', events: [] } });
      recorded.failure[422] = invalid.body;
      writeFileSync(recordedAnswersFile, JSON.stringify(recorded, null, 2) + '\n');
    }
  }, 240_000);
});
