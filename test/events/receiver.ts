/**
 * A real local webhook receiver: an HTTP server that verifies every request
 * with the `standardwebhooks` package, as a client's system would, and can
 * be told to answer with an error or to stall.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  verified: boolean;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** the status answered (200 unless set); a function decides per request */
  status: number | ((r: Received) => number);
  /** the secret requests are verified with */
  secret: string;
  /** how long each answer takes */
  delayMs: number;
  /** runs (and is awaited) once a request has arrived and been verified, before it is answered: what happens meanwhile */
  meanwhile: ((r: Received) => Promise<void>) | null;
  /** resolves when `n` requests have arrived */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const r: Receiver = {
    url: '',
    received: [],
    status: 200,
    secret: '',
    delayMs: 0,
    meanwhile: null,
    async waitFor(n, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (r.received.length < n) {
        if (Date.now() > deadline) throw new Error(`received ${r.received.length} of ${n}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(r.secret).verify(raw, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      const got: Received = { id: String(req.headers['webhook-id']), headers: req.headers, payload: JSON.parse(raw), verified };
      r.received.push(got);
      const answer = () => res.writeHead(typeof r.status === 'number' ? r.status : r.status(got)).end('ok');
      const later = () => (r.delayMs > 0 ? setTimeout(answer, r.delayMs) : answer());
      if (r.meanwhile) void r.meanwhile(got).then(later, (err) => res.writeHead(500).end(String(err)));
      else later();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return r;
}
