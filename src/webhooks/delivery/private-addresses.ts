import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Loopback, private, link-local, shared, reserved and multicast ranges: never a webhook receiver with WEBHOOK_DENY_PRIVATE. */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  // Discard-only, NAT64 local-use (RFC 8215: where the IPv4 address sits depends on the operator's prefix), unique-local, link-local, site-local, multicast.
  ['100::', 64],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part counts as two). */
function groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4 = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.');

/**
 * The IPv4 address an IPv6 one carries, for the forms that reach it: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`),
 * NAT64 (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`) and Teredo (`2001:0::`, the client's
 * address inverted in the last 32 bits).
 */
function embeddedIpv4(g: number[]): string | undefined {
  const [g0, g1, g2, , g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeroesTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroesTo(5) && g5 === 0xffff) return ipv4(g6, g7);
  if (zeroesTo(4) && g4 === 0xffff && g5 === 0) return ipv4(g6, g7);
  if (zeroesTo(6)) return ipv4(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return ipv4(g6, g7);
  if (g0 === 0x2002) return ipv4(g1, g2);
  if (g0 === 0x2001 && g1 === 0) return ipv4(g6 ^ 0xffff, g7 ^ 0xffff);
  return undefined;
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4(groups(address));
  if (embedded !== undefined && PRIVATE.check(embedded, 'ipv4')) return true;
  return PRIVATE.check(address, 'ipv6');
}

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATE';
  constructor(host: string) {
    super(`${host} resolves to a loopback or private address`);
  }
}

const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/** True when the URL's host is, or resolves to, a loopback or private address; a name that does not resolve is not judged here. */
export async function resolvesPrivate(url: string): Promise<boolean> {
  const host = bare(new URL(url).hostname);
  if (isIP(host) !== 0) return isPrivateAddress(host);
  try {
    const addresses = await new Promise<LookupAddress[]>((resolve, reject) => lookup(host, { all: true }, (err, found) => (err ? reject(err) : resolve(found))));
    return addresses.some((a) => isPrivateAddress(a.address));
  } catch {
    return false;
  }
}

/** A literal IP in the URL: connecting to it takes no lookup, so it is judged before sending. */
export function literalPrivate(url: string): boolean {
  const host = bare(new URL(url).hostname);
  return isIP(host) !== 0 && isPrivateAddress(host);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for sockets that refuses names resolving to a private address, checked at connect time (DNS may change). */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (err, found) => {
    if (err) return callback(err, '');
    if (found.length === 0 || found.some((a) => isPrivateAddress(a.address))) return callback(new PrivateAddressError(hostname), '');
    if (options.all === true) return callback(null, found);
    const first = found[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
}
