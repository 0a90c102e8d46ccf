import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { nowIso } from '../../infra/clock';
import { config } from '../../shared/config';

export const handler = route({ public: true }, async () => ok({ status: 'ok', stage: config.stage(), time: nowIso() }));
