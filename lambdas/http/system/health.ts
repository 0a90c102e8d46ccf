import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { health } from '../../services/system/system';

export const handler = route({ public: true }, async () => ok(health()));
