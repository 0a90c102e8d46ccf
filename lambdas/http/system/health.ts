import { publicRoute } from '../kit/public-route';
import { ok } from '../kit/reply';
import { health } from '#services/system/system';

export const handler = publicRoute({ public: true }, async () => ok(health()));
