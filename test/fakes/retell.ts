/**
 * A local Retell, following Retell's OpenAPI document (as generated into retell-typescript-sdk:
 * CallCreatePhoneCallParams, PhoneCallResponse, the create-phone-call error bodies with
 * error_message) and docs.retellai.com (webhook-overview, secure-webhook, deploy/concurrency):
 *   POST /v2/create-phone-call  Bearer auth, JSON; from_number (a number the account owns) and
 *                               to_number required, dynamic variables must be strings; 201 with
 *                               the call; 429 past the concurrency limit (20 by default)
 *   GET  /v2/get-call/{id}      the call, or 404
 *   POST /v2/stop-call/{id}     ends an ongoing call
 *   webhooks                    {event, call} to agent_override.agent.webhook_url, signed
 *                               x-retell-signature: v=<ms>,d=<hex HMAC-SHA256(body + ms)> with the
 *                               API key that has the webhook badge
 * Assumed where the reference is silent: stop-call answers 204 and ends the call with
 * disconnection_reason manual_stopped; an ended call answers stop-call with 400.
 */
import { createHmac, randomBytes } from 'node:crypto';
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

export interface RetellFakeOptions {
  apiKey: string;
  /** the key with the webhook badge; default the API key */
  webhookKey?: string;
  numbers: string[];
  concurrencyLimit?: number;
}

export type RetellEvent = 'call_started' | 'call_ended' | 'call_analyzed';

export interface RetellWebhookOptions {
  key?: string;
  /** ms since the epoch */
  timestamp?: number;
  tamper?: boolean;
  unsigned?: boolean;
}

export class RetellFake {
  readonly calls = new Map<string, Record<string, unknown>>();
  private readonly hooks = new Map<string, string>();
  private refusals: FakeReply[] = [];

  private constructor(
    readonly http: FakeHttp,
    private readonly o: RetellFakeOptions,
  ) {}

  static async start(o: RetellFakeOptions): Promise<RetellFake> {
    let fake: RetellFake | undefined;
    const http = await FakeHttp.start((r) => fake!.route(r));
    fake = new RetellFake(http, o);
    return fake;
  }

  get baseUrl(): string {
    return this.http.url;
  }
  creates(): FakeRequest[] {
    return this.http.requests.filter((r) => r.path === '/v2/create-phone-call');
  }
  refuseNextCreate(status = 429, headers?: Record<string, string>): void {
    this.refusals.push(json(status, { error_message: status === 429 ? 'Too many requests' : 'Internal Server Error' }, headers));
  }
  next(m: Misbehaviour): void {
    this.http.next(m);
  }
  forget(id: string): void {
    this.calls.delete(id);
  }
  start(id: string): void {
    Object.assign(this.call(id), { call_status: 'ongoing', start_timestamp: 1_900_000_000_000 });
  }
  end(id: string, o: { reason: string; seconds?: number; analysis?: Record<string, unknown> }): void {
    const start = 1_900_000_000_000;
    Object.assign(this.call(id), {
      call_status: 'ended',
      disconnection_reason: o.reason,
      start_timestamp: start,
      end_timestamp: start + (o.seconds ?? 0) * 1000,
      duration_ms: (o.seconds ?? 0) * 1000,
      transcript: 'Agent: hi',
      ...(o.analysis ? { call_analysis: o.analysis } : {}),
    });
  }

  webhook(id: string, event: RetellEvent, o: RetellWebhookOptions = {}): { url: string; headers: Record<string, string>; body: string } {
    const { call_analysis, ...rest } = this.call(id);
    // call_ended carries every field of the call but call_analysis; call_analyzed adds it.
    const call = event === 'call_analyzed' ? { ...rest, call_analysis } : rest;
    const body = JSON.stringify({ event, call });
    const ts = o.timestamp ?? Date.now();
    const d = createHmac('sha256', o.key ?? this.o.webhookKey ?? this.o.apiKey)
      .update(body + ts)
      .digest('hex');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(o.unsigned ? {} : { 'x-retell-signature': `v=${ts},d=${d}` }),
    };
    return { url: this.hooks.get(id)!, headers, body: o.tamper ? body.replace('"event"', '"event" ') : body };
  }

  deliver(id: string, event: RetellEvent, o: RetellWebhookOptions = {}): Promise<Delivery> {
    const w = this.webhook(id, event, o);
    return deliver(w.url, w.headers, w.body);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private call(id: string): Record<string, unknown> {
    const c = this.calls.get(id);
    if (!c) throw new Error(`the Retell fake has no call ${id}`);
    return c;
  }

  private route(r: FakeRequest): FakeReply {
    if (r.headers.authorization !== `Bearer ${this.o.apiKey}`) return json(401, { error_message: 'Unauthorized' });
    if (r.method === 'POST' && r.path === '/v2/create-phone-call') return this.create(r);
    const get = /^\/v2\/get-call\/([^/]+)$/.exec(r.path);
    if (get && r.method === 'GET') {
      const c = this.calls.get(decodeURIComponent(get[1]!));
      return c ? json(200, c) : json(404, { error_message: 'Not Found' });
    }
    const stop = /^\/v2\/stop-call\/([^/]+)$/.exec(r.path);
    if (stop && r.method === 'POST') {
      const c = this.calls.get(decodeURIComponent(stop[1]!));
      if (!c) return json(404, { error_message: 'Not Found' });
      if (c.call_status !== 'ongoing' && c.call_status !== 'registered') return json(400, { error_message: 'Call is not ongoing' });
      Object.assign(c, { call_status: 'ended', disconnection_reason: 'manual_stopped' });
      return { status: 204 };
    }
    return json(404, { error_message: 'Not Found' });
  }

  private create(r: FakeRequest): FakeReply {
    const refusal = this.refusals.shift();
    if (refusal) return refusal;
    const b = isJson(r.headers) ? parseBody(r.raw) : null;
    if (!b) return json(400, { error_message: 'Invalid request body' });
    const vars = (b.retell_llm_dynamic_variables ?? {}) as Record<string, unknown>;
    const problem =
      typeof b.from_number !== 'string' || !E164.test(b.from_number)
        ? 'from_number must be in E.164 format'
        : !this.o.numbers.includes(b.from_number)
          ? 'from_number must be a number purchased from Retell or imported to Retell'
          : typeof b.to_number !== 'string' || !E164.test(b.to_number)
            ? 'to_number must be in E.164 format'
            : Object.values(vars).some((v) => typeof v !== 'string')
              ? 'retell_llm_dynamic_variables values must be strings'
              : null;
    if (problem) return json(400, { error_message: problem });
    const live = [...this.calls.values()].filter((c) => c.call_status === 'registered' || c.call_status === 'ongoing').length;
    if (live >= (this.o.concurrencyLimit ?? 20)) return json(429, { error_message: 'Concurrency limit reached' });
    const id = `call_${randomBytes(14).toString('hex')}`;
    const call: Record<string, unknown> = {
      call_type: 'phone_call',
      from_number: b.from_number,
      to_number: b.to_number,
      direction: 'outbound',
      call_id: id,
      agent_id: b.override_agent_id ?? 'agent_bound_to_number',
      agent_version: 1,
      call_status: 'registered',
      metadata: b.metadata ?? {},
      retell_llm_dynamic_variables: vars,
    };
    this.calls.set(id, call);
    const hook = (((b.agent_override ?? {}) as Record<string, unknown>).agent ?? {}) as Record<string, unknown>;
    if (typeof hook.webhook_url === 'string') this.hooks.set(id, hook.webhook_url);
    return json(201, call);
  }
}
