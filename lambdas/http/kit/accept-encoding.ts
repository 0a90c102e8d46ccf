/**
 * Whether a request's `Accept-Encoding` takes gzip (RFC 9110, 12.5.3): `gzip` or `x-gzip` with a
 * weight above 0, or `*` above 0 when gzip is not named. No header means identity only here: a
 * client that says nothing gets the plain file.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.toLowerCase().split(';');
    const name = rawName.trim();
    const q = params.map((p) => p.replace(/\s+/g, '')).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    const w = Number.isFinite(weight) ? weight : 0;
    if (name === 'gzip' || name === 'x-gzip') gzip = Math.max(gzip ?? 0, w);
    else if (name === '*') any = w;
  }
  return (gzip ?? any ?? 0) > 0;
}
