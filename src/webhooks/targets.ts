/**
 * Where a webhook may be delivered (docs/webhooks.md, "Safe targets"): an `https` URL whose host
 * has public addresses only, unless WEBHOOK_ALLOW_PRIVATE=true, which also allows `http` and
 * loopback, private, link-local and other non-public addresses (development and tests). The URL
 * is checked when a subscription is created or changed, and again at each delivery: its host is
 * resolved, every address it resolves to must be public, and the request connects to the address
 * that was checked (`pinnedLookup`), never to one a second lookup might give.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** What a URL may not be, with the rule it breaks; the message of a 400 or of a failed attempt. */
export class TargetRefused extends Error {}

/** An address a delivery connects to. */
export interface Target {
  address: string;
  family: 4 | 6;
}

export const ALLOW_PRIVATE_HINT = 'allowed only with WEBHOOK_ALLOW_PRIVATE=true';

/** Address ranges that are not public, and what each is called in a refusal. */
const RANGES: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'a "this network" address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'an IETF protocol address'],
  ['192.0.2.0', 24, 'ipv4', 'a documentation address'],
  ['192.88.99.0', 24, 'ipv4', 'a 6to4 relay address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['198.51.100.0', 24, 'ipv4', 'a documentation address'],
  ['203.0.113.0', 24, 'ipv4', 'a documentation address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'the unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['64:ff9b::', 96, 'ipv6', 'a NAT64 address'],
  ['64:ff9b:1::', 48, 'ipv6', 'a NAT64 address'],
  ['100::', 64, 'ipv6', 'a discard address'],
  ['2001::', 23, 'ipv6', 'an IETF protocol address'],
  ['2001:db8::', 32, 'ipv6', 'a documentation address'],
  ['2002::', 16, 'ipv6', 'a 6to4 address'],
  ['fc00::', 7, 'ipv6', 'a private (unique local) address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fec0::', 10, 'ipv6', 'a site-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];

const BLOCKS = RANGES.map(([network, prefix, type, name]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return { list, type, name };
});

/** What kind of non-public address `address` is, or undefined for a public one. */
export function nonPublic(address: string): string | undefined {
  let ip = address;
  let type: 'ipv4' | 'ipv6' = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  // An IPv4 address written as IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`) is that IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const hex = /^::ffff:([\da-f]{1,4}):([\da-f]{1,4})$/i.exec(ip);
  if (mapped) [ip, type] = [mapped[1], 'ipv4'];
  else if (hex) {
    const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    [ip, type] = [[high >> 8, high & 255, low >> 8, low & 255].join('.'), 'ipv4'];
  }
  for (const block of BLOCKS) {
    if (block.type === type && block.list.check(ip, type)) return block.name;
  }
  return undefined;
}

/** A URL's host as an address or a name: without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * The URL of a subscription, parsed and checked for what needs no lookup: absolute, `https`
 * (or `http` when private targets are allowed), no user name or password, no fragment, at most
 * 2048 characters, and a host that is a public address when it is an address. Throws
 * TargetRefused naming the rule.
 */
export function parseTarget(raw: string, allowPrivate: boolean): URL {
  if (raw.length > 2048) throw new TargetRefused('url must be at most 2048 characters.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused(`url must be an absolute https:// URL, got "${raw}".`);
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw new TargetRefused(
      url.protocol === 'http:'
        ? `url must be an https:// URL (http:// is ${ALLOW_PRIVATE_HINT}).`
        : `url must be an https:// URL, got "${url.protocol}".`,
    );
  }
  if (url.username || url.password) {
    throw new TargetRefused('url must not carry a user name or password.');
  }
  if (url.hash) throw new TargetRefused('url must not carry a fragment (#...).');
  const host = hostOf(url);
  if (!allowPrivate && isIP(host)) refuseNonPublic(host, host);
  return url;
}

function refuseNonPublic(host: string, address: string): void {
  const kind = nonPublic(address);
  if (kind) {
    throw new TargetRefused(
      `url must point at a public address: ${host === address ? host : `${host} resolves to ${address}, which`} is ${kind} (${ALLOW_PRIVATE_HINT}).`,
    );
  }
}

/** How long the addresses of a name are reused, in ms: one lookup a second per host at most. */
const RESOLVED_FOR_MS = 1000;

/**
 * Resolves the host of `url` and checks every address it has: the one to connect to (the first),
 * or TargetRefused. An address literal needs no lookup; with private targets allowed, nothing
 * is checked and the request resolves the name itself (undefined).
 */
export class Resolver {
  private readonly cache = new Map<string, { at: number; addresses: Target[] }>();

  constructor(
    private readonly allowPrivate: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  async target(url: URL): Promise<Target | undefined> {
    const host = hostOf(url);
    if (this.allowPrivate) return undefined;
    const family = isIP(host);
    if (family) {
      refuseNonPublic(host, host);
      return { address: host, family: family as 4 | 6 };
    }
    const addresses = await this.resolve(host);
    for (const { address } of addresses) refuseNonPublic(host, address);
    return addresses[0];
  }

  private async resolve(host: string): Promise<Target[]> {
    const cached = this.cache.get(host);
    if (cached && this.now() - cached.at < RESOLVED_FOR_MS) return cached.addresses;
    let found: { address: string; family: number }[];
    try {
      found = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      throw new TargetRefused(
        `url's host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
      );
    }
    if (found.length === 0) throw new TargetRefused(`url's host ${host} does not resolve.`);
    const addresses = found.map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(host, { at: this.now(), addresses });
    return addresses;
  }
}

/**
 * The `lookup` of a request that must connect to `target`, the address that was checked,
 * whatever a new lookup would say (Node's net calls it with `all: true` when it tries several
 * families).
 */
export function pinnedLookup(target: Target) {
  return (
    _host: string,
    options: { all?: boolean },
    callback: (...args: unknown[]) => void,
  ): void => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}
