import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { randomUUID } from 'node:crypto';
import { config } from '#shared/config';
import { nowIso } from './clock';
import type { DomainEvent } from '#core/domain-event';
import { traced } from './tracing';

/** The event port's envelope, declared with the rules (core/domain-event.ts). */
export type { DomainEvent };

export const eventSource = 'despacho';

export interface EventPort {
  publish(events: DomainEvent[]): Promise<void>;
}

export function domainEvent<T>(type: string, accountId: number, data: T): DomainEvent<T> {
  return { id: `evt_${randomUUID()}`, type, created_at: nowIso(), account_id: accountId, data };
}

/** The message body an EventBridge rule hands to an SQS target: the whole event. */
export function busEnvelope(e: DomainEvent) {
  return { version: '0', id: e.id, 'detail-type': e.type, source: eventSource, time: e.created_at, detail: e };
}

let client: EventBridgeClient | undefined;

export const eventBridge: EventPort = {
  async publish(events) {
    client ??= traced(new EventBridgeClient({}));
    for (let i = 0; i < events.length; i += 10) {
      const batch = events.slice(i, i + 10);
      const res = await client.send(
        new PutEventsCommand({
          Entries: batch.map((e) => ({ EventBusName: config.busName(), Source: eventSource, DetailType: e.type, Detail: JSON.stringify(e) })),
        }),
      );
      if (res.FailedEntryCount) throw new Error(`EventBridge rejected ${res.FailedEntryCount} of ${batch.length} events`);
    }
  },
};

let current: EventPort = eventBridge;

export function events(): EventPort {
  return current;
}

export function useEvents(port: EventPort): void {
  current = port;
}
