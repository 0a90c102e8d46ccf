import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { describeEvent, webhookEvents } from '#core/webhooks/events';

const listed = webhookEvents.map(describeEvent);

export const handler = route({}, async () => ok(listed, { extra: { count: listed.length } }));
