/**
 * What leadline signs, verified by the `standardwebhooks` package a receiver
 * would use. X-Leadline-Signature signs the body only, the same on every
 * attempt, so a captured request could be replayed forever; the Standard
 * Webhooks headers sign an id and a timestamp with it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign, signedPost } from '../../src/dialer/signed-post.js';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import { generateSecret, signingKey, standardWebhookHeaders } from '../../src/net/standard-webhooks.js';

const BODY = JSON.stringify({ leadId: 'ld_1', campaignId: 'cp_1', externalId: 'crm-42' });

describe('standardWebhookHeaders', () => {
  it('a whsec_ secret: the package verifies the headers and returns the body', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(signingKey(secret)).toHaveLength(32);
    const headers = standardWebhookHeaders(secret, BODY);
    expect(headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it("a campaign's free-text secret is used as its raw UTF-8 bytes: the package verifies it with { format: 'raw' }", () => {
    const ascii = 'predial-secret-1';
    expect(new Webhook(ascii, { format: 'raw' }).verify(BODY, standardWebhookHeaders(ascii, BODY))).toEqual(JSON.parse(BODY));
    // Given a string, the package takes one byte per UTF-16 unit; past ASCII, pass the UTF-8 bytes.
    const accented = 'sécret-ключ-🔑';
    const headers = standardWebhookHeaders(accented, BODY);
    expect(new Webhook(Buffer.from(accented, 'utf8'), { format: 'raw' }).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    // a malformed whsec_ value is a free-text secret too
    expect(
      new Webhook('whsec_not base64!', { format: 'raw' }).verify(BODY, standardWebhookHeaders('whsec_not base64!', BODY)),
    ).toBeDefined();
  });

  it('a stale or future timestamp, another body, id or secret: the package refuses', () => {
    const secret = generateSecret();
    const wh = new Webhook(secret);
    const at = (msAgo: number) => standardWebhookHeaders(secret, BODY, { now: Date.now() - msAgo });
    expect(() => wh.verify(BODY, at(6 * 60_000))).toThrow('Message timestamp too old');
    expect(() => wh.verify(BODY, at(-6 * 60_000))).toThrow('Message timestamp too new');
    expect(wh.verify(BODY, at(60_000))).toBeDefined();
    const fresh = standardWebhookHeaders(secret, BODY);
    expect(() => wh.verify(BODY.replace('crm-42', 'crm-43'), fresh)).toThrow('No matching signature found');
    expect(() => wh.verify(BODY, { ...fresh, 'webhook-id': 'msg_other' })).toThrow('No matching signature found');
    expect(() => new Webhook(generateSecret()).verify(BODY, fresh)).toThrow('No matching signature found');
    // a timestamp moved forward by a replayer no longer matches the signature
    expect(() => wh.verify(BODY, { ...at(10 * 60_000), 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) })).toThrow(
      'No matching signature found',
    );
  });
});

describe('signedPost sends them beside X-Leadline-Signature', () => {
  let server: Server;
  let url: string;
  const received: { headers: IncomingHttpHeaders; raw: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"phoneNumber":"+14155550123"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/predial`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const outbound = new OutboundPolicy(parseOutboundAllow('127.0.0.0/8'));

  it('the receiver verifies each request with the package; each attempt has its own id and timestamp', async () => {
    const secret = 'predial-secret-1';
    const body = { leadId: 'ld_1', campaignId: 'cp_1', externalId: 'crm-42' };
    for (let i = 0; i < 2; i++) expect((await signedPost({ url, body, secret, timeoutMs: 2000, outbound })).ok).toBe(true);
    const [first, second] = received.slice(-2);
    for (const r of [first!, second!]) {
      expect(new Webhook(secret, { format: 'raw' }).verify(r.raw, r.headers as Record<string, string>)).toEqual(body);
      expect(r.headers['x-leadline-signature']).toBe(sign(r.raw, secret));
    }
    // the same body, but not the same message: a receiver keeping ids for the tolerance window refuses a replay
    expect(first!.raw).toBe(second!.raw);
    expect(first!.headers['webhook-id']).not.toBe(second!.headers['webhook-id']);
  });

  it('a caller may give the webhook-id, for retries of one message', async () => {
    await signedPost({ url, body: {}, secret: generateSecret(), timeoutMs: 2000, outbound, webhookId: 'msg_attempt_1' });
    expect(received.at(-1)!.headers['webhook-id']).toBe('msg_attempt_1');
  });

  it('no secret: no signature headers of either kind', async () => {
    await signedPost({ url, body: {}, secret: null, timeoutMs: 2000, outbound });
    const { headers } = received.at(-1)!;
    expect([headers['x-leadline-signature'], headers['webhook-id'], headers['webhook-timestamp'], headers['webhook-signature']]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
