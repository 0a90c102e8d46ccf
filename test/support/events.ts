import { beforeEach } from 'vitest';
import { useEvents, type DomainEvent } from '#infra/events';

/** Records every event the handlers publish in this test process (the twin runs in-process). */
export function recordEvents(): DomainEvent[] {
  const seen: DomainEvent[] = [];
  beforeEach(() => {
    seen.length = 0;
    useEvents({ publish: async (events) => void seen.push(...events) });
  });
  return seen;
}
