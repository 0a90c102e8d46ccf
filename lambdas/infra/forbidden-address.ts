import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** 64:ff9b::/96, the well-known NAT64 prefix (RFC 6052): its last 32 bits are the IPv4 address. */
const wellKnownNat64 = ipaddr.parseCIDR('64:ff9b::/96');

const ipv4From = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 address an IPv6 address carries, when reaching it reaches that IPv4 host (through the
 * host's own stack, a translator or a relay): IPv4-mapped (::ffff:a.b.c.d), IPv4-translated
 * (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d; deprecated, still routed by some stacks), 6to4
 * (2002:aabb:ccdd::/48) and well-known NAT64 (64:ff9b::a.b.c.d). Null for any other address.
 */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
      return address.toIPv4Address();
    case 'rfc6145':
      return ipv4From(p[6], p[7]);
    case '6to4':
      return ipv4From(p[1], p[2]);
  }
  if (address.match(wellKnownNat64)) return ipv4From(p[6], p[7]);
  // :: and ::1 land here too, as 0.0.0.0 and 0.0.0.1, which are refused like them.
  if (p.slice(0, 6).every((part) => part === 0)) return ipv4From(p[6], p[7]);
  return null;
}

/**
 * True when a webhook delivery must not connect to this address. The ranges are ipaddr.js's
 * (the IANA special-purpose registries); only what it calls `unicast`, an ordinary public
 * address, is allowed: private, loopback, link-local (cloud metadata), CGNAT, multicast,
 * reserved, documentation, benchmarking, Teredo and the like are not. An IPv6 address carrying an
 * IPv4 address is judged as that IPv4 address. The local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215)
 * is refused whole: where the IPv4 address sits in it depends on a prefix length only the local
 * network knows. Anything that is not an IP address is forbidden too, so a surprise fails closed.
 */
export function isForbiddenAddress(ip: string): boolean {
  return rangeOf(ip) !== 'unicast';
}

/** Whether an address is this machine's own (127.0.0.0/8, ::1, or 127.x inside an IPv6 address). */
export function isLoopbackAddress(ip: string): boolean {
  return rangeOf(ip) === 'loopback';
}

/** ipaddr.js's range of an address (of the IPv4 address an IPv6 one carries), or undefined when it is not an IP address. */
function rangeOf(ip: string): string | undefined {
  // A zone (fe80::1%eth0) only names the interface; brackets come from URL hosts.
  const text = ip.trim().replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  // net.isIP is the strict gate: ipaddr.js also reads "127.1" or "0x7f.0.0.1", which no resolver
  // hands back and which a URL parser has already turned into dotted quads.
  if (net.isIP(text) === 0) return undefined;
  const address = ipaddr.parse(text);
  if (address.kind() === 'ipv4') return address.range();
  const v6 = address as ipaddr.IPv6;
  return (embeddedIpv4(v6) ?? v6).range();
}

/**
 * Where a webhook may go: `public` (a deployed stage, and the twin by default) refuses every
 * private or reserved address; `loopback` also lets this machine's own (the twin with
 * WEBHOOK_LOCAL_RECEIVERS=1: a developer's receiver on 127.0.0.1); `any` (`cli listen`, forwarding
 * to the developer's own receiver) lets every address.
 */
export type WebhookReach = 'public' | 'loopback' | 'any';

/** Whether a delivery of this reach may connect to `ip`. */
export function mayReach(ip: string, reach: WebhookReach): boolean {
  if (reach === 'any') return true;
  if (!isForbiddenAddress(ip)) return true;
  return reach === 'loopback' && isLoopbackAddress(ip);
}
