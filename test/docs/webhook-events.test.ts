import { readFileSync, writeFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { webhookEvents } from '#core/webhooks/events';
import { eventPayloads } from '#http/webhooks/event-payloads';
import { serviceDocument } from '#http/system/openapi';
import { eventsSection, webhooksDoc, webhooksDocText } from '#scripts/generate-events-doc';

describe("the events reference of docs/partners/webhooks.md (npm run catalog:events)", () => {
  it('is the declaration of every payload as it is now (rewritten here when stale: commit it)', () => {
    const fresh = webhooksDocText();
    const stale = readFileSync(webhooksDoc, 'utf8') !== fresh;
    if (stale) writeFileSync(webhooksDoc, fresh);
    expect(stale, 'docs/partners/webhooks.md had a stale events reference: npm test has rewritten it from event-payloads.ts; commit it').toBe(false);
  });

  it('has a section for every event a subscription can name, and only those', () => {
    const headings = [...eventsSection().matchAll(/^#### `([^`]+)`$/gm)].map((m) => m[1]);
    expect(headings).toEqual(webhookEvents.map((e) => e.event));
  });

  it("says what every field of every event's data means", () => {
    const unexplained = [...eventsSection().matchAll(/^\| `([^`]+)` \| [^|]+ \|\s*\|$/gm)].map((m) => m[1]);
    expect(unexplained).toEqual([]);
  });
});

describe("the declaration of the events' payloads (lambdas/http/webhooks/event-payloads.ts)", () => {
  it("gives each event an example its own schema takes", () => {
    const broken = Object.entries(eventPayloads)
      .map(([name, p]) => [name, v.safeParse(p.data, p.example)] as const)
      .filter(([, r]) => !r.success)
      .map(([name, r]) => `${name}: ${r.issues!.map((i) => `${v.getDotPath(i) ?? '/'} ${i.message}`).join('; ')}`);
    expect(broken).toEqual([]);
  });

  it("is openapi.json's webhooks: one POST per event, with when it fires and its example", () => {
    const webhooks = serviceDocument().webhooks as Record<string, { post: { description: string; requestBody: { content: Record<string, { example: { type: string } }> } } }>;
    expect(Object.keys(webhooks)).toEqual(webhookEvents.map((e) => e.event));
    for (const [name, hook] of Object.entries(webhooks)) {
      expect(hook.post.description, name).toMatch(/^Sent when /);
      expect(hook.post.requestBody.content['application/json'].example.type).toBe(name);
    }
  });
});
