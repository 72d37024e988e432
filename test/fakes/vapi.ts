/**
 * A local Vapi, following the Vapi OpenAPI document (CreateCallDto, Call, Monitor, AssistantOverrides,
 * Server, ServerMessage*) and the docs pages calls/call-features, calls/call-concurrency and
 * server-url/events:
 *   POST /call           Bearer auth, JSON; assistantId, phoneNumberId and customer.number (E.164)
 *                        required; 201 with the Call, monitor.controlUrl and subscriptionLimits;
 *                        over the concurrency limit (10 by default) concurrencyBlocked: true
 *   GET  /call/{id}      the Call, or 404
 *   POST <controlUrl>    {"type": "end-call"} ends a live call (no auth: controlAuthenticationEnabled
 *                        defaults to false)
 *   webhooks             POST {message:{type, call, ...}} to assistantOverrides.server.url with
 *                        server.headers, or signed like an HMAC credential with Vapi's defaults
 * Where the reference is silent the fake says what it assumes (the endedReason of a call ended
 * through the control URL, the error bodies).
 */
import { createHmac, randomUUID } from 'node:crypto';
import {
  type Delivery,
  deliver,
  E164,
  FakeHttp,
  type FakeReply,
  type FakeRequest,
  isJson,
  json,
  type Misbehaviour,
  parseBody,
} from './base.js';

export interface VapiFakeOptions {
  apiKey: string;
  concurrencyLimit?: number;
}

type VapiAuth = 'server-headers' | 'hmac' | 'none';

export interface VapiWebhookOptions {
  auth?: VapiAuth;
  /** the secret of an HMAC credential */
  hmacSecret?: string;
  /** seconds since the epoch; default now */
  timestamp?: number;
  /** change the body after signing */
  tamper?: boolean;
}

export class VapiFake {
  readonly calls = new Map<string, Record<string, unknown>>();
  private refusals: FakeReply[] = [];

  private constructor(
    readonly http: FakeHttp,
    private readonly o: Required<VapiFakeOptions>,
  ) {}

  static async start(o: VapiFakeOptions): Promise<VapiFake> {
    let fake: VapiFake | undefined;
    const http = await FakeHttp.start((r) => fake!.route(r));
    fake = new VapiFake(http, { concurrencyLimit: 10, ...o });
    return fake;
  }

  get baseUrl(): string {
    return this.http.url;
  }
  creates(): FakeRequest[] {
    return this.http.requests.filter((r) => r.method === 'POST' && r.path === '/call');
  }
  refuseNextCreate(status = 429, headers?: Record<string, string>): void {
    this.refusals.push(json(status, { message: 'Too Many Requests', statusCode: status }, headers));
  }
  next(m: Misbehaviour): void {
    this.http.next(m);
  }
  /** the platform no longer knows the call (deleted, another account) */
  forget(id: string): void {
    this.calls.delete(id);
  }
  setStatus(id: string, status: 'ringing' | 'in-progress'): void {
    this.call(id).status = status;
  }
  end(id: string, o: { endedReason: string; structuredData?: Record<string, unknown>; seconds?: number }): void {
    const c = this.call(id);
    const start = new Date(Date.parse('2030-01-01T10:00:00.000Z'));
    Object.assign(c, {
      status: 'ended',
      endedReason: o.endedReason,
      startedAt: start.toISOString(),
      endedAt: new Date(start.getTime() + (o.seconds ?? 0) * 1000).toISOString(),
      analysis: { summary: 'a call', ...(o.structuredData ? { structuredData: o.structuredData } : {}) },
    });
  }

  /** one server message about a call, as Vapi would post it */
  webhook(
    id: string,
    type: 'status-update' | 'end-of-call-report',
    o: VapiWebhookOptions = {},
  ): { url: string; headers: Record<string, string>; body: string } {
    const c = this.call(id);
    const server = (c.assistantOverrides as { server: { url: string; headers?: Record<string, string> } }).server;
    const message: Record<string, unknown> = { type, timestamp: Date.now(), call: c };
    if (type === 'status-update') message.status = c.status;
    else
      Object.assign(message, {
        endedReason: c.endedReason,
        analysis: c.analysis,
        artifact: { transcript: 'AI: Hi.', messages: [] },
        startedAt: c.startedAt,
        endedAt: c.endedAt,
      });
    const body = JSON.stringify({ message });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const auth = o.auth ?? 'server-headers';
    if (auth === 'server-headers') Object.assign(headers, server.headers);
    if (auth === 'hmac') {
      const ts = String(o.timestamp ?? Math.floor(Date.now() / 1000));
      headers['x-timestamp'] = ts;
      headers['x-signature'] = createHmac('sha256', o.hmacSecret ?? '')
        .update(`${ts}.${body}`)
        .digest('hex');
    }
    return { url: server.url, headers, body: o.tamper ? body.replace('"type"', '"type" ') : body };
  }

  deliver(id: string, type: 'status-update' | 'end-of-call-report', o: VapiWebhookOptions = {}): Promise<Delivery> {
    const w = this.webhook(id, type, o);
    return deliver(w.url, w.headers, w.body);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private call(id: string): Record<string, unknown> {
    const c = this.calls.get(id);
    if (!c) throw new Error(`the Vapi fake has no call ${id}`);
    return c;
  }

  private route(r: FakeRequest): FakeReply {
    const control = /^\/control\/([^/]+)$/.exec(r.path);
    if (control && r.method === 'POST') return this.control(control[1]!, r);
    if (r.headers.authorization !== `Bearer ${this.o.apiKey}`) return json(401, { message: 'Unauthorized', statusCode: 401 });
    if (r.method === 'POST' && r.path === '/call') return this.create(r);
    const get = /^\/call\/([^/]+)$/.exec(r.path);
    if (get && r.method === 'GET') {
      const c = this.calls.get(decodeURIComponent(get[1]!));
      return c ? json(200, c) : json(404, { message: 'Not Found', statusCode: 404 });
    }
    return json(404, { message: `Cannot ${r.method} ${r.path}`, statusCode: 404 });
  }

  private create(r: FakeRequest): FakeReply {
    const refusal = this.refusals.shift();
    if (refusal) return refusal;
    const b = isJson(r.headers) ? parseBody(r.raw) : null;
    if (!b) return json(400, { message: ['body must be a JSON CreateCallDto'], error: 'Bad Request', statusCode: 400 });
    const customer = (b.customer ?? {}) as Record<string, unknown>;
    const problems = [
      !b.assistantId && !b.assistant ? 'assistantId or assistant is required' : null,
      !b.phoneNumberId && !b.phoneNumber ? 'phoneNumberId or phoneNumber is required' : null,
      typeof customer.number !== 'string' || !E164.test(customer.number) ? 'customer.number must be an E.164 number' : null,
    ].filter(Boolean);
    if (problems.length) return json(400, { message: problems, error: 'Bad Request', statusCode: 400 });
    const id = randomUUID();
    const live = [...this.calls.values()].filter((c) => c.status !== 'ended').length;
    const blocked = live >= this.o.concurrencyLimit;
    const now = new Date().toISOString();
    const call: Record<string, unknown> = {
      id,
      orgId: 'org-fake',
      type: 'outboundPhoneCall',
      createdAt: now,
      updatedAt: now,
      assistantId: b.assistantId,
      phoneNumberId: b.phoneNumberId,
      customer,
      assistantOverrides: b.assistantOverrides,
      status: blocked ? 'ended' : 'queued',
      ...(blocked ? { endedReason: 'call.start.error-subscription-concurrency-limit-reached' } : {}),
      phoneCallProvider: 'twilio',
      phoneCallTransport: 'pstn',
      monitor: { listenUrl: `ws://127.0.0.1/${id}/transport`, controlUrl: `${this.http.url}/control/${id}` },
    };
    this.calls.set(id, call);
    const subscriptionLimits = {
      concurrencyBlocked: blocked,
      concurrencyLimit: this.o.concurrencyLimit,
      remainingConcurrentCalls: Math.max(0, this.o.concurrencyLimit - live - 1),
    };
    return json(201, { subscriptionLimits, ...call });
  }

  private control(id: string, r: FakeRequest): FakeReply {
    const c = this.calls.get(decodeURIComponent(id));
    if (!c || c.status === 'ended') return json(404, { message: 'Not Found', statusCode: 404 });
    const b = isJson(r.headers) ? parseBody(r.raw) : null;
    if (b?.type !== 'end-call') return json(400, { message: 'unsupported control message', statusCode: 400 });
    // Assumed: the docs do not name the endedReason of a call ended through the control URL.
    Object.assign(c, { status: 'ended', endedReason: 'manually-canceled' });
    return json(200, {});
  }
}
