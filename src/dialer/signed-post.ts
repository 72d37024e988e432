/**
 * POST a JSON body signed with the campaign's secret, with a deadline, and
 * read a small JSON answer. The predial function and the webhook call
 * provider both talk to the client's systems this way.
 *
 * node:http with keep-alive agents rather than fetch or an HTTP client
 * library: the whole need is one signed POST with a timeout and a size cap,
 * and fetch costs about four times the CPU per request (measured on a local
 * server: ~400-850 µs against ~100-190 µs), which shows when a worker makes
 * a request per call.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { outboundPolicy, OutboundRefusedError, type OutboundPolicy } from '../net/outbound.js';
import { standardWebhookHeaders } from '../net/standard-webhooks.js';

const SIGNATURE_HEADER = 'X-Leadline-Signature';
/** answers are a few fields; anything bigger is a misbehaving endpoint */
const MAX_ANSWER_BYTES = 64 * 1024;

type Agents = { 'http:': http.Agent; 'https:': https.Agent };
const agentsByPolicy = new WeakMap<OutboundPolicy, Agents>();
/**
 * Keep-alive agents whose DNS lookup is the policy's, so every connection is
 * checked against the address it actually goes to. A kept-alive socket was
 * checked when it was opened. Idle sockets are unref'd by Node, so they never
 * hold a process open.
 */
function agentsFor(policy: OutboundPolicy): Agents {
  let agents = agentsByPolicy.get(policy);
  if (!agents) {
    const options = { keepAlive: true, lookup: policy.lookup };
    agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
    agentsByPolicy.set(policy, agents);
  }
  return agents;
}

/**
 * `sha256=<hex HMAC-SHA256 of the raw body>`, as the receiver recomputes it.
 * Kept for existing receivers; it signs the body only, which is the same on
 * every attempt, so it cannot tell a replay. The Standard Webhooks headers
 * sent beside it sign an id and a timestamp too.
 */
export function sign(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The signature headers of a request leadline sends a client's system: the
 * body's HMAC (kept for existing receivers) and the Standard Webhooks headers,
 * whose signature also covers an id and a timestamp, so a replay can be told.
 * None when there is no secret.
 */
export function signatureHeaders(body: string, secret: string | null, webhookId?: string, legacy = true): Record<string, string> {
  if (!secret) return {};
  const standard = standardWebhookHeaders(secret, body, { id: webhookId });
  return legacy ? { [SIGNATURE_HEADER]: sign(body, secret), ...standard } : standard;
}

export type PostResult = { ok: true; status: number; json: unknown } | { ok: false; reason: string; status?: number };

export interface PostOptions {
  url: string;
  body: unknown;
  /** no signature header when the campaign has no secret */
  secret: string | null;
  timeoutMs: number;
  /** aborts the request early, e.g. on shutdown */
  signal?: AbortSignal;
  /** where the request may go; default: the process's (OUTBOUND_ALLOW) */
  outbound?: OutboundPolicy;
  /** webhook-id: the same on every retry of one message; default a new id per request */
  webhookId?: string;
  /**
   * 'json' (default): a 2xx must carry a JSON answer, which is returned;
   * 'any': any 2xx is a success and its body is not read (events webhooks)
   */
  answer?: 'json' | 'any';
  /** X-Leadline-Signature beside the Standard Webhooks headers (default true: existing receivers check it) */
  legacySignature?: boolean;
}

/** a failed request's reason: the policy's own words, or the error code, never the remote's content */
function failureReason(err: Error): string {
  if (err instanceof OutboundRefusedError) return err.message;
  return `request failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`;
}

/** Never throws: every failure is a reason, because each one is recorded on an attempt. */
export function signedPost(o: PostOptions): Promise<PostResult> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(o.url);
    } catch {
      return resolve({ ok: false, reason: `invalid URL "${o.url}"` });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return resolve({ ok: false, reason: `unsupported URL "${o.url}"` });
    const policy = o.outbound ?? outboundPolicy();
    const refused = policy.checkUrl(url);
    if (refused) return resolve({ ok: false, reason: refused });
    const raw = JSON.stringify(o.body);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(raw),
      accept: 'application/json',
    };
    Object.assign(headers, signatureHeaders(raw, o.secret, o.webhookId, o.legacySignature ?? true));

    let settled = false;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      // A complete answer leaves the socket to the agent for the next call.
      if (!r.ok) req.destroy();
      resolve(r);
    };
    const fail = (reason: string, status?: number) => finish(status === undefined ? { ok: false, reason } : { ok: false, reason, status });
    const onAbort = () => fail('aborted: the dialer is shutting down');

    const client = url.protocol === 'https:' ? https : http;
    // No redirects are followed: a signed body goes only where the campaign says.
    const req = client.request(url, { method: 'POST', headers, agent: agentsFor(policy)[url.protocol] }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (o.answer === 'any') return;
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) fail(`answer larger than ${MAX_ANSWER_BYTES} bytes`);
        else chunks.push(chunk);
      });
      res.on('error', (err) => fail(failureReason(err)));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) return fail(`answered HTTP ${status}`, status);
        if (o.answer === 'any') return finish({ ok: true, status, json: null });
        const text = Buffer.concat(chunks).toString('utf8');
        if (text.trim() === '') return fail('empty answer');
        try {
          finish({ ok: true, status, json: JSON.parse(text) });
        } catch {
          fail('answer is not JSON');
        }
      });
    });
    req.on('error', (err) => fail(failureReason(err)));
    const timer = setTimeout(() => fail(`no answer within ${o.timeoutMs} ms`), o.timeoutMs);
    if (o.signal?.aborted) return onAbort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    req.end(raw);
  });
}
