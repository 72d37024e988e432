/**
 * The default HttpRequester: one request on node:http/https with a deadline, an abort signal, a
 * cap on the answer's size, no redirects followed, and an honest `sent` flag.
 *
 * Hand-written on node:http rather than fetch or an HTTP client library because the dialer's
 * rule for a create-call hangs on one fact those hide: whether any byte of the request may have
 * reached the platform. A refused connection or a DNS failure proves nothing was placed (the
 * attempt is "not placed, retry later"); anything after the connection opened may have placed a
 * call (the attempt stays open and is reconciled, never re-sent).
 *
 * Every request uses a fresh connection (agent: false). A reused keep-alive socket that the
 * platform closed while idle fails a POST with ECONNRESET after the write, which would leave an
 * attempt open for reconciliation though nothing was placed. The cost, measured on loopback
 * (2,000 POSTs, Node 20): 0.55-0.61 ms a request on a fresh connection against 0.19-0.24 ms on a
 * keep-alive one; on the internet add one TLS handshake per call, still nothing next to a phone
 * call, at dialling rates of a few calls per second.
 */
import http from 'node:http';
import https from 'node:https';
import type { HttpAnswer, HttpRequest, HttpRequester } from '../dialer/providers/platforms/types.js';
import { outboundPolicy, OutboundRefusedError, type OutboundPolicy } from './outbound.js';

/** Vapi's call objects carry the assistant, transcript and messages; a few MiB is a misbehaving server */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface RequesterOptions {
  maxAnswerBytes?: number;
  /** where requests may go; default: the process's (OUTBOUND_ALLOW, src/net/outbound.ts) */
  outbound?: OutboundPolicy;
}

export function createHttpRequester(o: RequesterOptions = {}): HttpRequester {
  const maxBytes = o.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  return (r) => send(r, maxBytes, o.outbound ?? outboundPolicy());
}

export const defaultHttpRequester: HttpRequester = createHttpRequester();

function send(r: HttpRequest, maxBytes: number, policy: OutboundPolicy): Promise<HttpAnswer> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(r.url);
    } catch {
      return resolve({ ok: false, reason: `invalid URL "${r.url}"`, sent: false });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return resolve({ ok: false, reason: `unsupported URL scheme "${url.protocol}"`, sent: false });
    }
    if (r.signal?.aborted) return resolve({ ok: false, reason: 'aborted before sending', sent: false });
    // an IP literal is checked here; a name is checked on every address its lookup returns (DNS rebinding)
    const refused = policy.checkUrl(url);
    if (refused) return resolve({ ok: false, reason: refused, sent: false });

    const headers: Record<string, string | number> = { ...r.headers };
    if (r.body !== undefined) headers['content-length'] = Buffer.byteLength(r.body);

    // Bytes can reach the server only once the connection is up (after TLS for https).
    let connected = false;
    let settled = false;
    const finish = (a: HttpAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      r.signal?.removeEventListener('abort', onAbort);
      if (!a.ok) req.destroy();
      resolve(a);
    };
    const fail = (reason: string) => finish({ ok: false, reason, sent: connected });
    const onAbort = () => fail('aborted');

    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, { method: r.method, headers, agent: false, lookup: policy.lookup }, (res) => {
      connected = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) fail(`answer larger than ${maxBytes} bytes`);
        else chunks.push(chunk);
      });
      res.on('error', (err) => fail(`answer broken: ${code(err)}`));
      res.on('close', () => {
        if (!res.complete) fail('answer cut short');
      });
      res.on('end', () => {
        const answerHeaders: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(res.headers)) answerHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
        finish({ ok: true, status: res.statusCode ?? 0, headers: answerHeaders, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('socket', (socket) => {
      const event = url.protocol === 'https:' ? 'secureConnect' : 'connect';
      socket.once(event, () => {
        connected = true;
      });
    });
    req.on('error', (err) => fail(err instanceof OutboundRefusedError ? err.message : `request failed: ${code(err)}`));
    const timer = setTimeout(() => fail(`no answer within ${r.timeoutMs} ms`), r.timeoutMs);
    r.signal?.addEventListener('abort', onAbort, { once: true });
    req.end(r.body);
  });
}

function code(err: Error): string {
  return (err as NodeJS.ErrnoException).code ?? err.message;
}
