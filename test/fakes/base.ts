/**
 * The HTTP plumbing the platform fakes share: a real node:http server on 127.0.0.1 (port 0) that
 * keeps every request, answers through a route function, and can be told to misbehave on the
 * next request (hang without answering, or reset the connection after reading the request).
 * Each fake (vapi.ts, retell.ts, bland.ts, twilio.ts) implements its platform's endpoints on it.
 */
import { createServer, request, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  raw: string;
}

export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  /** an object is sent as JSON, a string as is, undefined as no body */
  body?: unknown;
}

/** hang: never answer; reset: drop the connection after reading the request; slow: answer after SLOW_MS */
export type Misbehaviour = 'hang' | 'reset' | 'slow';
const SLOW_MS = 400;

export class FakeHttp {
  readonly requests: FakeRequest[] = [];
  private readonly misbehave: Misbehaviour[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  static async start(route: (req: FakeRequest) => FakeReply): Promise<FakeHttp> {
    let fake: FakeHttp | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const u = new URL(req.url ?? '/', 'http://fake');
        const r: FakeRequest = {
          method: req.method ?? 'GET',
          path: u.pathname,
          query: u.searchParams,
          headers: req.headers,
          raw: Buffer.concat(chunks).toString('utf8'),
        };
        fake!.requests.push(r);
        const m = fake!.misbehave.shift();
        if (m === 'hang') return; // the socket stays open until close()
        if (m === 'reset') return req.socket.destroy();
        if (m === 'slow') return void setTimeout(() => send(res, route(r)), SLOW_MS);
        send(res, route(r));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeHttp(server, `http://127.0.0.1:${port}`);
    return fake;
  }

  /** the next request (of any kind) gets this treatment instead of an answer */
  next(m: Misbehaviour): void {
    this.misbehave.push(m);
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function send(res: ServerResponse, r: FakeReply): void {
  const headers: Record<string, string> = { ...r.headers };
  let text = '';
  if (typeof r.body === 'string') text = r.body;
  else if (r.body !== undefined) {
    text = JSON.stringify(r.body);
    headers['content-type'] ??= 'application/json';
  }
  res.writeHead(r.status, headers).end(text);
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): FakeReply => ({
  status,
  body,
  ...(headers ? { headers } : {}),
});

export function parseBody(raw: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(raw) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function isJson(headers: IncomingHttpHeaders): boolean {
  return /^application\/json\b/i.test(String(headers['content-type'] ?? ''));
}

export const E164 = /^\+[1-9]\d{1,14}$/;

export interface Delivery {
  status: number;
  body: string;
}

/** POSTs one webhook the way a platform does: to the URL it was given, with its headers. */
export function deliver(url: string, headers: Record<string, string>, body: string): Promise<Delivery> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
