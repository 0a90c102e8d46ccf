import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminToken, useTwin } from '#support/twin';
import { useReceiver } from '#support/receiver';
import { collectionFile } from '#scripts/generate-postman';
import { runCollection, type Collection } from '#scripts/postman-run';

/**
 * Every request of the committed Postman collection, sent in its order to a fresh twin as
 * Postman's Collection Runner sends them (variables, auth, scripts): each must pass its test, the
 * documented success status. An example the twin refuses fails here.
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
  }, 240_000);
});
