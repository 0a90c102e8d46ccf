import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { randomUUID } from 'node:crypto';
import { config } from '../shared/config';
import { nowIso } from './clock';

/**
 * A domain event as it travels on the bus: the webhook envelope of spec 2.10 ({id, type,
 * created_at, data}) plus the account it belongs to. `id` stays the same on every delivery.
 */
export interface DomainEvent<T = unknown> {
  id: string;
  type: string;
  created_at: string;
  account_id: number;
  data: T;
}

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
    client ??= new EventBridgeClient({});
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
