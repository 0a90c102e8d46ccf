import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '#infra/forbidden-address';

describe('isForbiddenAddress', () => {
  it.each([
    // IPv4
    ['0.0.0.0', '0.0.0.0/8'],
    ['0.255.255.255', '0.0.0.0/8'],
    ['10.0.0.1', '10/8'],
    ['10.255.255.255', '10/8'],
    ['100.64.0.1', '100.64/10 CGNAT'],
    ['100.127.255.254', '100.64/10 CGNAT'],
    ['127.0.0.1', '127/8'],
    ['127.255.0.9', '127/8'],
    ['169.254.169.254', '169.254/16 metadata'],
    ['169.254.0.1', '169.254/16'],
    ['172.16.0.1', '172.16/12'],
    ['172.31.255.255', '172.16/12'],
    ['192.0.0.8', '192.0.0/24'],
    ['192.0.2.1', '192.0.2/24'],
    ['192.168.1.1', '192.168/16'],
    ['198.18.0.1', '198.18/15'],
    ['198.19.255.255', '198.18/15'],
    ['198.51.100.7', '198.51.100/24'],
    ['203.0.113.7', '203.0.113/24'],
    ['224.0.0.1', '224/4 multicast'],
    ['239.255.255.250', '224/4 multicast'],
    ['240.0.0.1', '240/4 reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback, long form'],
    ['fc00::1', 'fc00::/7'],
    ['fd12:3456::1', 'fc00::/7'],
    ['fd00:ec2::254', 'AWS metadata over IPv6'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['febf::1', 'link-local upper end'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:10.0.0.1', 'IPv4-mapped 10/8'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
    ['2001:db8::1', 'documentation'],
    ['[::1]', 'bracketed'],
    // IPv6 forms that carry an IPv4 address, judged as that address (issue 13)
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex'],
    ['::169.254.169.254', 'IPv4-compatible metadata'],
    ['::ffff:0:7f00:1', 'IPv4-translated loopback (RFC 6145)'],
    ['::ffff:0:10.1.2.3', 'IPv4-translated 10/8'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a9fe:a9fe::1', '6to4 of the metadata endpoint'],
    ['2002:c0a8:101::', '6to4 of 192.168.1.1'],
    ['64:ff9b::10.0.0.1', 'NAT64 of 10/8'],
    ['64:ff9b:1::', 'local-use NAT64 prefix (RFC 8215)'],
    ['64:ff9b:1:7f00:1::', 'local-use NAT64 prefix, loopback in the /48 layout'],
    ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'local-use NAT64 prefix, upper end'],
    // Other special-purpose IPv6 ranges
    ['2001::1', 'Teredo'],
    ['2001:2::1', 'benchmarking'],
    ['100::1', 'discard prefix'],
    ['fec0::1', 'deprecated site-local'],
    ['3fff::1', 'documentation (RFC 9637)'],
    // Odd IPv4 spellings no resolver returns: not an address, so refused
    ['127.1', 'short form'],
    ['0x7f.0.0.1', 'hex octet'],
    ['017700000001', 'octal integer'],
    // Not an address at all: fail closed.
    ['localhost', 'a hostname'],
    ['', 'empty'],
    ['999.1.1.1', 'garbage'],
  ])('forbids %s (%s)', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['2606:4700:4700::1111'],
    ['100.63.255.255'],
    ['100.128.0.0'],
    ['172.15.255.255'],
    ['172.32.0.0'],
    ['169.253.255.255'],
    ['198.17.255.255'],
    ['198.20.0.0'],
    ['192.0.1.1'],
    ['223.255.255.255'],
    ['::ffff:8.8.8.8'],
    ['::8.8.8.8'],
    ['::ffff:0:8.8.8.8'],
    ['2002:808:808::1'],
    ['64:ff9b::808:808'],
    ['2a00:1450:4001:80b::200e'],
    ['2001:db9::1'],
    ['fbff::1'],
  ])('allows the public address %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});
