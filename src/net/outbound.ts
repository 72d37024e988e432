/**
 * The outbound policy: where leadline may send a request (predial, the
 * webhook call provider, and every outbound integration after them). By
 * default only public unicast addresses: loopback, private, link-local (the
 * cloud metadata address 169.254.169.254 among them), carrier-grade NAT,
 * unique-local, multicast, unspecified, broadcast and the other
 * special-purpose ranges are refused, and so are their IPv4-mapped,
 * -compatible, -translated and NAT64 IPv6 forms. OUTBOUND_ALLOW opts in by
 * CIDR or host name.
 *
 * The check is on the address actually connected to: IP literals before the
 * request, host names inside the agent's DNS lookup, for every address the
 * lookup returns, so a name that resolves (or re-resolves, DNS rebinding) to
 * an internal address is refused too. URL host forms such as `0`,
 * `2130706433` or `0x7f.1` are normalised by WHATWG URL to dotted quads
 * before they get here.
 *
 * Address classification is ipaddr.js's (its special-purpose ranges follow
 * the IANA registries), not hand-written bit math.
 */
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

const OUTBOUND_ALLOW = 'OUTBOUND_ALLOW';

/** what OUTBOUND_ALLOW lets through besides public addresses */
export interface OutboundAllow {
  readonly cidrs: readonly Cidr[];
  /** lower case, without a trailing dot */
  readonly hosts: ReadonlySet<string>;
  /** the entries as given, for messages and logs */
  readonly entries: readonly string[];
}

export class OutboundAllowError extends Error {}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** OUTBOUND_ALLOW: comma-separated CIDRs (`127.0.0.0/8`, `fd00::/8`), single addresses, or host names */
export function parseOutboundAllow(raw: string | undefined): OutboundAllow {
  const entries = (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const cidrs: Cidr[] = [];
  const hosts = new Set<string>();
  for (const entry of entries) {
    if (entry.includes('/')) {
      try {
        cidrs.push(ipaddr.parseCIDR(entry));
      } catch {
        throw new OutboundAllowError(`${OUTBOUND_ALLOW}: "${entry}" is not a CIDR such as 127.0.0.0/8 or fd00::/8`);
      }
    } else if (ipaddr.isValid(entry) && isIP(entry)) {
      const address = ipaddr.parse(entry);
      cidrs.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      const host = entry.toLowerCase().replace(/\.$/, '');
      // A name WHATWG URL would read as an address (`0x7f.1`, `2130706433`) never
      // matches a URL's host, which arrives normalised: say so rather than ignore it.
      let normalised: string | undefined;
      try {
        normalised = new URL(`http://${host}/`).hostname;
      } catch {
        normalised = undefined;
      }
      if (!HOST_NAME.test(host) || normalised !== host) {
        throw new OutboundAllowError(`${OUTBOUND_ALLOW}: "${entry}" is neither a CIDR, an IP address nor a host name`);
      }
      hosts.add(host);
    }
  }
  return Object.freeze({ cidrs: Object.freeze(cidrs), hosts, entries: Object.freeze(entries) });
}

const DESCRIPTIONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (RFC 6598) address',
  private: 'a private (RFC 1918) address',
  uniqueLocal: 'a unique-local (fc00::/7) address',
  reserved: 'a reserved special-purpose address',
};
const describe = (range: string) => DESCRIPTIONS[range] ?? `a special-purpose address (${range})`;

/** the IPv4 address an IPv6 one stands for, when it is one of the forms that embed one */
function embeddedIPv4(a: ipaddr.IPv6): { v4: ipaddr.IPv4; form: string } | null {
  const p = a.parts;
  const tail = () => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  switch (a.range()) {
    case 'ipv4Mapped':
      return { v4: tail(), form: 'IPv4-mapped' };
    case 'rfc6145':
      return { v4: tail(), form: 'IPv4-translated' };
    case 'rfc6052':
      if (p[2] === 0) return { v4: tail(), form: 'NAT64' }; // 64:ff9b::/96; the local-use /48 stays special
      return null;
  }
  // ::/96 less :: and ::1: the deprecated IPv4-compatible form (RFC 4291 2.5.5.1)
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return { v4: tail(), form: 'IPv4-compatible' };
  return null;
}

/** why the address is not a public unicast destination, or null when it is */
function specialPurpose(a: Address): string | null {
  if (a.kind() === 'ipv4') {
    const range = a.range();
    return range === 'unicast' ? null : describe(range);
  }
  const v6 = a as ipaddr.IPv6;
  const inner = embeddedIPv4(v6);
  if (inner) {
    const why = specialPurpose(inner.v4);
    return why ? `an ${inner.form} form of ${inner.v4.toString()}, ${why}` : null;
  }
  const range = v6.range();
  if (range !== 'unicast') return describe(range);
  // Only 2000::/3 is allocated as global unicast; the rest is reserved by IANA.
  if ((v6.parts[0]! & 0xe000) !== 0x2000) return 'outside the global unicast range 2000::/3';
  return null;
}

const refused = (what: string) => `refused by the outbound policy: ${what} (allow it with ${OUTBOUND_ALLOW})`;

export class OutboundRefusedError extends Error {
  readonly code = 'EOUTBOUNDREFUSED';
}

export class OutboundPolicy {
  constructor(
    readonly allow: OutboundAllow = parseOutboundAllow(''),
    /** dns.lookup; tests put a resolver of their own here */
    private readonly resolve: typeof dns.lookup = dns.lookup,
  ) {}

  private allowed(a: Address): boolean {
    for (const [net, bits] of this.allow.cidrs) {
      const candidate =
        a.kind() === net.kind()
          ? a
          : a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()
            ? (a as ipaddr.IPv6).toIPv4Address()
            : null;
      if (candidate?.match(net, bits)) return true;
    }
    return false;
  }

  /** what is wrong with the address as a destination ("a loopback address"), or null when it may be connected to */
  private problem(address: string): string | null {
    let a: Address;
    try {
      a = ipaddr.parse(address);
    } catch {
      return 'not an IP address';
    }
    return this.allowed(a) ? null : specialPurpose(a);
  }

  /** the recorded reason an address may not be connected to, or null when it may */
  refusal(address: string): string | null {
    const why = this.problem(address);
    return why ? refused(`${address} is ${why}`) : null;
  }

  /** an opted-in host name skips the address check: the operator named it */
  allowsHost(hostname: string): boolean {
    return this.allow.hosts.has(hostname.toLowerCase().replace(/\.$/, ''));
  }

  /**
   * Checks a URL before the request: an IP literal host here, since Node
   * connects to literals without a lookup; a name is left to `lookup`.
   */
  checkUrl(url: URL): string | null {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (isIP(host) === 0 || this.allowsHost(host)) return null;
    return this.refusal(host);
  }

  /** a `lookup` for http.Agent / net.connect that refuses the whole answer if any address in it is refused */
  readonly lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    this.resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      if (!this.allowsHost(hostname)) {
        for (const { address } of list) {
          const why = this.problem(address);
          // The kind of address, not the address: the reason is shown to the tenant who chose the
          // URL (attempts, the delivery log), and the operator's internal DNS is not theirs to map.
          if (why) return callback(new OutboundRefusedError(refused(`${hostname} resolves to ${why}`)), '');
        }
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}

/**
 * The policy used where none is passed explicitly: strict until the process
 * sets its own from config (src/cli/dialer.ts does, from OUTBOUND_ALLOW).
 */
let processPolicy = new OutboundPolicy();

export function setOutboundPolicy(policy: OutboundPolicy): void {
  processPolicy = policy;
}

export function outboundPolicy(): OutboundPolicy {
  return processPolicy;
}
