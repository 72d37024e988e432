/** A real HTTP server on 127.0.0.1 standing in for a CRM's predial function or a telephony webhook. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundPolicy, outboundPolicy, parseOutboundAllow, setOutboundPolicy } from '../../src/net/outbound.js';

/**
 * Stubs listen on loopback, which the outbound policy refuses by default.
 * Tests that call them opt in the way an operator with a CRM on the same host
 * would: OUTBOUND_ALLOW=127.0.0.0/8 (ALLOW_STUBS in a dialer process's env).
 */
export const ALLOW_STUBS = { OUTBOUND_ALLOW: '127.0.0.0/8' };
// In this test process: importing the stub is opting in. The test files of a
// worker share the process (vitest.config.ts, isolate: false), so a test of the
// default policy sets it for its own run (withDefaultPolicy).
setOutboundPolicy(new OutboundPolicy(parseOutboundAllow(ALLOW_STUBS.OUTBOUND_ALLOW)));

/** runs fn under the policy of a process started without OUTBOUND_ALLOW, then puts back the one before */
export async function withDefaultPolicy<T>(fn: () => Promise<T>): Promise<T> {
  const before = outboundPolicy();
  setOutboundPolicy(new OutboundPolicy());
  try {
    return await fn();
  } finally {
    setOutboundPolicy(before);
  }
}

export interface StubRequest {
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  /** the signature header matched an HMAC-SHA256 of the raw body with the stub's secret */
  signed: boolean;
}

export interface StubAnswer {
  status?: number;
  /** an object is sent as JSON, a string as is */
  body?: unknown;
  /** wait this long before answering */
  delayMs?: number;
}

export interface Stub {
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

export async function startStub(secret: string | null, answer: (req: StubRequest) => StubAnswer | Promise<StubAnswer>): Promise<Stub> {
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      // The receiver's side of the contract: recompute the HMAC over the raw body.
      const expected = secret ? Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`) : null;
      const got = Buffer.from(String(req.headers['x-leadline-signature'] ?? ''));
      const signed = expected !== null && got.length === expected.length && timingSafeEqual(got, expected);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      const r: StubRequest = { headers: req.headers, raw, body, signed };
      requests.push(r);
      const a = await answer(r);
      const send = () => {
        if (res.destroyed) return;
        const text = typeof a.body === 'string' ? a.body : a.body === undefined ? '' : JSON.stringify(a.body);
        res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }).end(text);
      };
      if (a.delayMs) setTimeout(send, a.delayMs).unref();
      else send();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
