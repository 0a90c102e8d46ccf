/** A client's X-Request-Id is used when it is well formed: 8 to 128 characters of `[A-Za-z0-9._:-]`. */
const requestIdPattern = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * The id a request is known by, in its answer's X-Request-Id and on every log line it causes (the
 * authorizer's too): the client's X-Request-Id when well formed, else the gateway's.
 */
export function requestIdOf(headers: Record<string, string | undefined> | undefined, gatewayId: string | undefined): string | undefined {
  const given = Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === 'x-request-id')?.[1];
  return given && requestIdPattern.test(given) ? given : gatewayId;
}
