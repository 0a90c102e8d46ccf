import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { flightArchive } from '#services/deliveries/find';
import { DeliveriesFlightArchive } from '#catalog/deliveries';

export const handler = route(DeliveriesFlightArchive.schemas, async ({ params, principal }) => {
  const archive = await flightArchive(principal, params.mawb);
  return ok({ download_url: archive.downloadUrl, file_name: archive.fileName, expires_in_minutes: archive.expiresInMinutes });
});
