/**
 * What a process reads of the table, by the kind of item (the partition key's prefix, `ORDERIDX`,
 * `ORDERCHG`, `ORDER`...): items and read units as DynamoDB counts them (`ReturnConsumedCapacity`).
 * For benchmarks and tests that hold a route to a read bound; it measures the process's document
 * client, so start it after the twin (which makes a new client) and stop it when done.
 */
import { documentClient } from '#infra/dynamo';

export interface Reads {
  items: number;
  units: number;
}

export interface ReadMeter {
  /** Reads since the last `take`, by key prefix; resets them. */
  take(): Map<string, Reads>;
  stop(): void;
}

const prefixOf = (pk: unknown) => (typeof pk === 'string' ? pk.replace(/#.*$/, '') : 'other');

export function meterReads(): ReadMeter {
  let reads = new Map<string, Reads>();
  const add = (prefix: string, items: number, units: number) => {
    const r = reads.get(prefix) ?? { items: 0, units: 0 };
    reads.set(prefix, { items: r.items + items, units: r.units + units });
  };
  const name = `read-meter-${Math.random()}`;
  const stack = documentClient().middlewareStack;
  stack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const input = args.input as Record<string, any>;
      if (!/^(Query|Get|BatchGet|Scan)/.test(command)) return next(args);
      input.ReturnConsumedCapacity = 'TOTAL';
      const out = await next(args);
      const output = out.output as Record<string, any>;
      if (command.startsWith('Query') || command.startsWith('Scan')) {
        add(prefixOf(input.ExpressionAttributeValues?.[':pk']), output.Count ?? 0, output.ConsumedCapacity?.CapacityUnits ?? 0);
      } else if (command.startsWith('BatchGet')) {
        const units = (output.ConsumedCapacity ?? []).reduce((s: number, c: { CapacityUnits?: number }) => s + (c.CapacityUnits ?? 0), 0);
        const items = Object.values(output.Responses ?? {}).reduce((s: number, list) => s + (list as unknown[]).length, 0);
        const firstKey = Object.values(input.RequestItems ?? {})[0] as { Keys?: { pk?: unknown }[] } | undefined;
        add(prefixOf(firstKey?.Keys?.[0]?.pk), items, units);
      } else {
        add(prefixOf(input.Key?.pk), output.Item ? 1 : 0, output.ConsumedCapacity?.CapacityUnits ?? 0);
      }
      return out;
    },
    { step: 'initialize', name },
  );
  return {
    take() {
      const taken = reads;
      reads = new Map();
      return taken;
    },
    stop() {
      stack.remove(name);
    },
  };
}
