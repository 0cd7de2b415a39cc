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
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:127.0.0.1`, or as URLs write it, `::ffff:7f00:1`). */
function mappedIpv4(address: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted !== undefined) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex === null) return undefined;
  const [high, low] = [Number.parseInt(hex[1] as string, 16), Number.parseInt(hex[2] as string, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export function isPrivateAddress(address: string): boolean {
  const mapped = mappedIpv4(address);
  if (mapped !== undefined) return PRIVATE.check(mapped, 'ipv4');
  const family = isIP(address);
  return family === 0 || PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
