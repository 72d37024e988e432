/**
 * The outbound policy against real local servers: every internal destination
 * refused by default, whatever form its URL takes and whatever a name
 * resolves to, and reached once OUTBOUND_ALLOW opts in. Predial and the
 * webhook provider used to post anywhere a dashboard user pointed them
 * (127.0.0.1, [::1], 0, 2130706433, 169.254.169.254) and show the answer.
 */
import type dns from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { predial } from '../../src/dialer/predial.js';
import { webhookProvider } from '../../src/dialer/providers/webhook.js';
import { signedPost } from '../../src/dialer/signed-post.js';
import { OutboundPolicy, OutboundAllowError, parseOutboundAllow } from '../../src/net/outbound.js';
import { withDefaultPolicy } from '../dialer/http-stub.js';

const STRICT = new OutboundPolicy();
const allowing = (raw: string, resolve?: typeof dns.lookup) => new OutboundPolicy(parseOutboundAllow(raw), resolve);

/** a resolver for made-up names, answering as dns.lookup does with { all: true } */
function resolver(answers: (name: string, call: number) => string[]): typeof dns.lookup {
  const calls = new Map<string, number>();
  return ((name: string, _options: unknown, callback: (err: Error | null, addresses: dns.LookupAddress[]) => void) => {
    const n = (calls.get(name) ?? 0) + 1;
    calls.set(name, n);
    const list = answers(name, n).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    process.nextTick(() => callback(list.length ? null : Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), list));
  }) as unknown as typeof dns.lookup;
}

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['10.1.2.3', 'a private (RFC 1918) address'],
    ['172.16.0.1', 'a private (RFC 1918) address'],
    ['192.168.1.1', 'a private (RFC 1918) address'],
    ['169.254.169.254', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT (RFC 6598) address'],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['255.255.255.255', 'a broadcast address'],
    ['224.0.0.1', 'a multicast address'],
    ['192.0.2.1', 'a reserved special-purpose address'],
    ['198.18.0.1', 'a reserved special-purpose address'],
    ['240.0.0.1', 'a reserved special-purpose address'],
    ['::1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fe80::1', 'a link-local address'],
    ['fc00::1', 'a unique-local (fc00::/7) address'],
    ['fd12:3456::1', 'a unique-local (fc00::/7) address'],
    ['ff02::1', 'a multicast address'],
    ['::ffff:127.0.0.1', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['::ffff:7f00:1', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['::ffff:a9fe:a9fe', 'an IPv4-mapped form of 169.254.169.254, a link-local address'],
    ['::ffff:10.0.0.1', 'an IPv4-mapped form of 10.0.0.1, a private (RFC 1918) address'],
    ['::7f00:1', 'an IPv4-compatible form of 127.0.0.1, a loopback address'],
    ['::a9fe:a9fe', 'an IPv4-compatible form of 169.254.169.254, a link-local address'],
    ['::ffff:0:192.168.0.1', 'an IPv4-translated form of 192.168.0.1, a private (RFC 1918) address'],
    ['64:ff9b::7f00:1', 'an NAT64 form of 127.0.0.1, a loopback address'],
    ['2002:7f00:1::', 'a special-purpose address (6to4)'],
    ['2001:db8::1', 'a reserved special-purpose address'],
    ['100::1', 'a special-purpose address (discard)'],
    ['4000::1', 'outside the global unicast range 2000::/3'],
  ])('%s is refused: %s', (address, why) => {
    expect(STRICT.refusal(address)).toBe(`refused by the outbound policy: ${address} is ${why} (allow it with OUTBOUND_ALLOW)`);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    '%s (public) is allowed',
    (address) => {
      expect(STRICT.refusal(address)).toBeNull();
    },
  );

  it('OUTBOUND_ALLOW opts in by CIDR, single address or host name, and nothing more', () => {
    const p = allowing(' 127.0.0.0/8, fd00::/8 ,10.1.2.3, crm.internal.example., ');
    expect(p.refusal('127.0.0.1')).toBeNull();
    expect(p.refusal('::ffff:127.0.0.1')).toBeNull(); // the mapped form of an allowed address
    expect(p.refusal('fd00::5')).toBeNull();
    expect(p.refusal('10.1.2.3')).toBeNull();
    expect(p.refusal('10.1.2.4')).toMatch(/10\.1\.2\.4 is a private/);
    expect(p.refusal('::1')).toMatch(/loopback/);
    expect(p.allowsHost('CRM.internal.example')).toBe(true);
    expect(p.allowsHost('internal.example')).toBe(false);
  });

  it.each([
    ['127.0.0.0/33', /"127\.0\.0\.0\/33" is not a CIDR/],
    ['10.0.0.0/8 x', /is not a CIDR/],
    ['http://crm.example', /"http:\/\/crm.example" is not a CIDR/],
    ['crm.example:8080', /neither a CIDR, an IP address nor a host name/],
    ['*.example.com', /neither/],
    ['0x7f.1', /neither/],
    ['2130706433', /neither/],
    ['10.0.0', /neither/],
    ['crm example', /neither/],
  ])('OUTBOUND_ALLOW=%s is a ConfigError naming the variable', (raw, message) => {
    expect(() => parseOutboundAllow(raw)).toThrow(OutboundAllowError);
    expect(() => loadConfig({ OUTBOUND_ALLOW: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ OUTBOUND_ALLOW: raw })).toThrow(message);
    expect(() => loadConfig({ OUTBOUND_ALLOW: raw })).toThrow(/^OUTBOUND_ALLOW: /);
  });

  it('loadConfig: empty by default, parsed when set', () => {
    expect(loadConfig({}).outboundAllow.entries).toEqual([]);
    expect(loadConfig({ OUTBOUND_ALLOW: '127.0.0.0/8,crm.local' }).outboundAllow.entries).toEqual(['127.0.0.0/8', 'crm.local']);
  });
});

describe('signed requests to a real local server', () => {
  let server: Server;
  let port: number;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers.host ?? '');
      req.resume();
      // A new connection each time, so every request goes through a lookup of its own.
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end('{"phoneNumber":"+14155550123"}');
    });
    // '::' takes IPv4 too, so one server answers 127.0.0.1, ::1 and ::ffff:127.0.0.1
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (host: string, outbound: OutboundPolicy) =>
    signedPost({ url: `http://${host}:${port}/hook`, body: {}, secret: null, timeoutMs: 2000, outbound });

  const LITERALS: [string, string][] = [
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['0', '0.0.0.0 is an unspecified address'],
    ['0.0.0.0', '0.0.0.0 is an unspecified address'],
    ['2130706433', '127.0.0.1 is a loopback address'],
    ['0x7f.1', '127.0.0.1 is a loopback address'],
    ['0177.0.0.1', '127.0.0.1 is a loopback address'],
    ['127.1', '127.0.0.1 is a loopback address'],
    ['[::1]', '::1 is a loopback address'],
    ['[::127.0.0.1]', '::7f00:1 is an IPv4-compatible form of 127.0.0.1, a loopback address'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['[0:0:0:0:0:ffff:7f00:1]', '::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['localhost', 'localhost resolves to a loopback address'],
  ];

  it.each(LITERALS)('http://%s:port is refused by default, and nothing reaches the server', async (host, why) => {
    const before = seen.length;
    expect(await post(host, STRICT)).toEqual({
      ok: false,
      reason: `refused by the outbound policy: ${why} (allow it with OUTBOUND_ALLOW)`,
    });
    expect(seen.length).toBe(before);
  });

  // The deprecated IPv4-compatible form is not a way to reach 127.0.0.0/8 even when that is allowed.
  it.each(LITERALS.filter(([host]) => host !== '[::127.0.0.1]'))('http://%s:port is reached once OUTBOUND_ALLOW opts in', async (host) => {
    const before = seen.length;
    const r = await post(host, allowing('127.0.0.0/8,::1/128,0.0.0.0/32'));
    expect(r).toEqual({ ok: true, status: 200, json: { phoneNumber: '+14155550123' } });
    expect(seen.length).toBe(before + 1);
  });

  it('169.254.169.254, the cloud metadata address, is refused before any connection is tried', async () => {
    expect(
      await signedPost({ url: 'http://169.254.169.254/latest/meta-data/', body: {}, secret: null, timeoutMs: 2000, outbound: STRICT }),
    ).toEqual({
      ok: false,
      reason: 'refused by the outbound policy: 169.254.169.254 is a link-local address (allow it with OUTBOUND_ALLOW)',
    });
  });

  it('a host name is checked on every address it resolves to, after resolution', async () => {
    const names = resolver((name) =>
      name === 'crm.example' ? ['127.0.0.1'] : name === 'mixed.example' ? ['93.184.215.14', '10.0.0.7'] : [],
    );
    expect(await post('crm.example', new OutboundPolicy(undefined, names))).toEqual({
      ok: false,
      reason: 'refused by the outbound policy: crm.example resolves to a loopback address (allow it with OUTBOUND_ALLOW)',
    });
    expect((await post('mixed.example', new OutboundPolicy(undefined, names))).ok).toBe(false);
    expect(await post('mixed.example', new OutboundPolicy(undefined, names))).toMatchObject({
      reason: expect.stringContaining('mixed.example resolves to a private (RFC 1918) address'),
    });
    // the address checked is the address connected to: allowed, it reaches the server
    const before = seen.length;
    expect((await post('crm.example', new OutboundPolicy(parseOutboundAllow('127.0.0.0/8'), names))).ok).toBe(true);
    expect(seen).toHaveLength(before + 1);
    // a host name in OUTBOUND_ALLOW may resolve to anything
    expect((await post('crm.example', new OutboundPolicy(parseOutboundAllow('crm.example'), names))).ok).toBe(true);
  });

  it('DNS rebinding: a name that re-resolves to a refused address is refused on the next connection', async () => {
    // first answer allowed (127.0.0.2 is opted in), every later one loopback 127.0.0.1 (not opted in)
    const rebinding = resolver((_name, call) => [call === 1 ? '127.0.0.2' : '127.0.0.1']);
    const policy = new OutboundPolicy(parseOutboundAllow('127.0.0.2/32'), rebinding);
    expect((await post('rebind.example', policy)).ok).toBe(true);
    expect(await post('rebind.example', policy)).toEqual({
      ok: false,
      reason: 'refused by the outbound policy: rebind.example resolves to a loopback address (allow it with OUTBOUND_ALLOW)',
    });
  });

  it('without an explicit policy, predial and the webhook provider use the process policy: strict unless OUTBOUND_ALLOW says otherwise', () =>
    withDefaultPolicy(async () => {
      const r = await predial({
        url: `http://127.0.0.1:${port}/p`,
        secret: null,
        leadId: 'l',
        campaignId: 'c',
        externalId: null,
        timeoutMs: 2000,
      });
      expect(r).toEqual({
        ok: false,
        reason: 'predial: refused by the outbound policy: 127.0.0.1 is a loopback address (allow it with OUTBOUND_ALLOW)',
      });
      const call = await webhookProvider({ url: `http://[::1]:${port}/call`, secret: null, timeoutMs: 2000 }).place(
        { attemptId: 'at_1', leadId: 'l', campaignId: 'c', phoneNumber: '+14155550123', externalId: null, metadata: {}, attempt: 1 },
        new AbortController().signal,
      );
      // refused before anything was sent: the call was not placed, and spends no attempt
      expect(call).toEqual({
        kind: 'not-placed',
        reason: 'webhook: refused by the outbound policy: ::1 is a loopback address (allow it with OUTBOUND_ALLOW)',
      });
    }));
});

describe("recorded reasons never carry the remote answer's content", () => {
  let server: Server;
  let url: string;
  const SECRET_PAGE = 'root:x:0:0 internal-admin-token-123';
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      const kind = req.url!.slice(1);
      if (kind === 'status') res.writeHead(500, { 'content-type': 'text/plain' }).end(SECRET_PAGE);
      else if (kind === 'html') res.writeHead(200, { 'content-type': 'text/html' }).end(`<pre>${SECRET_PAGE}</pre>`);
      else if (kind === 'redirect') res.writeHead(302, { location: `http://169.254.169.254/${SECRET_PAGE}` }).end(SECRET_PAGE);
      else if (kind === 'big') res.writeHead(200).end(SECRET_PAGE.repeat(5000));
      else res.socket!.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ['status', 'answered HTTP 500'],
    ['html', 'answer is not JSON'],
    ['redirect', 'answered HTTP 302'],
    ['big', 'answer larger than 65536 bytes'],
    ['hangup', 'request failed: ECONNRESET'],
  ])('%s: %s', async (kind, reason) => {
    const r = await signedPost({ url: `${url}/${kind}`, body: {}, secret: null, timeoutMs: 2000, outbound: allowing('127.0.0.0/8') });
    // the reason, and for an HTTP error its status code: nothing of the answer's content
    const status = /HTTP (\d+)/.exec(reason)?.[1];
    expect(r).toEqual(status ? { ok: false, reason, status: Number(status) } : { ok: false, reason });
  });
});
