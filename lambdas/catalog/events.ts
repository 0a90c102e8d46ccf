import type { RouteDef } from './types';
import { EventsQuery } from '../http/events/schemas';

export const EventsList = {
  id: 'EventsList',
  method: 'GET',
  path: '/v1/events',
  handler: 'http/events/list',
  summary: "The account's events of the last 30 days, each as its deliveries send it (newest or oldest first, by cursor)",
  tag: 'events',
  auth: {},
  rate: 'events',
  uses: { table: ['Query'] },
  schemas: { query: EventsQuery },
} satisfies RouteDef;

/** The events feed (an extension: the spec has no way to pull events). */
export const eventsRoutes = { EventsList };
