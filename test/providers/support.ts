/**
 * What the platform contract tests share: a call request, a PlatformContext on the real HTTP
 * requester, and a receiver standing in for leadline's webhook route (a real HTTP server that
 * answers 401 when the platform's verify() refuses the request, else 200, and keeps the events
 * parse() found).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpRequester } from '../../src/net/http.js';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import type { CallRequest, InboundEvent, InboundRequest, Platform, PlatformContext } from '../../src/dialer/providers/platforms/types.js';

/** the fakes listen on 127.0.0.1, which the outbound policy refuses unless OUTBOUND_ALLOW opts in, as a test does here */
const localRequester = createHttpRequester({ outbound: new OutboundPolicy(parseOutboundAllow('127.0.0.0/8')) });

export function callRequest(over: Partial<CallRequest> = {}): CallRequest {
  return {
    attemptId: 'at_3kXq9',
    leadId: 'ld_7Hd2',
    campaignId: 'cp_1',
    phoneNumber: '+14155550123',
    externalId: 'crm-42',
    metadata: { name: 'Ada', plan: 'pro', score: 7, tags: ['a', 'b'] },
    attempt: 1,
    ...over,
  };
}

export interface Receiver {
  /** the callback URL for one attempt, as the dialer builds it */
  callbackUrl(attemptId: string): string;
  /** requests verify() accepted, with the events parse() found in them */
  accepted: { req: InboundRequest; events: InboundEvent[] }[];
  refused: InboundRequest[];
  close(): Promise<void>;
}

export async function startReceiver(platform: Platform, ctx: () => PlatformContext): Promise<Receiver> {
  const accepted: Receiver['accepted'] = [];
  const refused: InboundRequest[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      const inbound: InboundRequest = { rawBody: Buffer.concat(chunks).toString('utf8'), headers, url: `${base}${req.url}` };
      if (!platform.verify(inbound, ctx())) {
        refused.push(inbound);
        res.writeHead(401).end();
        return;
      }
      accepted.push({ req: inbound, events: platform.parse(inbound) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    callbackUrl: (attemptId) => `${base}/api/v1/providers/${platform.name}/events?attemptId=${encodeURIComponent(attemptId)}`,
    accepted,
    refused,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export function context(o: Partial<PlatformContext> & Pick<PlatformContext, 'secret' | 'baseUrl' | 'options'>): PlatformContext {
  return {
    webhookSecret: null,
    callbackUrl: 'http://127.0.0.1:9/api/v1/providers/x/events?attemptId=at_3kXq9',
    timeoutMs: 2000,
    request: localRequester,
    ...o,
  };
}

/**
 * The rule the dialer applies to a call's events, here only to show that what parse() reports is
 * enough for it: the first terminal event decides, exactly once; later, older or non-terminal
 * events never change the outcome.
 */
export function decide(events: InboundEvent[]): InboundEvent | null {
  return events.find((e) => e.terminal) ?? null;
}

export const never = new AbortController().signal;
