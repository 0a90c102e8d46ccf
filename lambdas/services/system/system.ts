import { nowIso } from '#infra/clock';
import { config } from '#shared/config';

/** What the public health check answers: the stage and the service's own time. */
export function health(): { status: 'ok'; stage: string; time: string } {
  return { status: 'ok', stage: config.stage(), time: nowIso() };
}
