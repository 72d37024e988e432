/**
 * A local Bland, following docs.bland.ai (api-v1/post/calls, api-v1/get/calls-id,
 * api-v1/post/calls-id-stop, tutorials/webhook-signing, platform/billing) and Bland's cookbooks:
 *   POST /v1/calls          authorization: <key> (no "Bearer"), JSON; phone_number (E.164) and
 *                           task or pathway_id required; {status: "success", call_id}; past the
 *                           concurrency cap (10 on the Start plan) a refusal
 *   GET  /v1/calls/{id}     the call details, or 404
 *   POST /v1/calls/{id}/stop {status: "success", message: "Call ended successfully."}, or
 *                           {status: "error", message: "SID not found for the given c_id."}
 *   webhooks                the call details POSTed to `webhook` when the call ends, and a
 *                           delayed second payload with corrected_transcript; X-Webhook-Signature
 *                           = hex HMAC-SHA256 of the body with the account's signing secret
 * Assumed where the reference is silent: the HTTP statuses and bodies of refusals (401 for a bad
 * key, 400 for a bad request, 429 at the cap, 404 for an unknown call), and that request_data's
 * keys show among the call's variables (the cookbook says they fill {{key}} in the prompt).
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

export interface BlandFakeOptions {
  apiKey: string;
  signingSecret: string;
  concurrencyLimit?: number;
}

export interface BlandEnd {
  status: string;
  queue_status?: string;
  answered_by?: string | null;
  minutes?: number;
  variables?: Record<string, unknown>;
  error_message?: string | null;
}

export class BlandFake {
  readonly calls = new Map<string, Record<string, unknown>>();
  private readonly hooks = new Map<string, string>();
  private refusals: FakeReply[] = [];

  private constructor(
    readonly http: FakeHttp,
    private readonly o: BlandFakeOptions,
  ) {}

  static async start(o: BlandFakeOptions): Promise<BlandFake> {
    let fake: BlandFake | undefined;
    const http = await FakeHttp.start((r) => fake!.route(r));
    fake = new BlandFake(http, o);
    return fake;
  }

  get baseUrl(): string {
    return this.http.url;
  }
  creates(): FakeRequest[] {
    return this.http.requests.filter((r) => r.method === 'POST' && r.path === '/v1/calls');
  }
  refuseNextCreate(status = 429, headers?: Record<string, string>): void {
    this.refusals.push(
      json(status, { status: 'error', message: status === 429 ? 'Rate limit exceeded' : 'Internal server error.' }, headers),
    );
  }
  next(m: Misbehaviour): void {
    this.http.next(m);
  }
  forget(id: string): void {
    this.calls.delete(id);
  }
  start(id: string): void {
    Object.assign(this.call(id), { queue_status: 'started', started_at: '2030-01-01T10:00:00+00:00' });
  }
  end(id: string, e: BlandEnd): void {
    const minutes = e.minutes ?? 0;
    Object.assign(this.call(id), {
      completed: true,
      status: e.status,
      queue_status: e.queue_status ?? 'complete',
      answered_by: e.answered_by ?? null,
      call_length: minutes,
      corrected_duration: String(Math.round(minutes * 60)),
      error_message: e.error_message ?? null,
      variables: { ...(this.call(id).variables as object), ...e.variables },
      call_ended_by: 'USER',
      concatenated_transcript: 'assistant: Hi! user: Hello.',
      summary: 'A short call.',
    });
  }

  /** the post-call webhook, or (`delayed`) the second payload with the corrected transcript */
  webhook(
    id: string,
    o: { secret?: string; delayed?: boolean; tamper?: boolean; unsigned?: boolean } = {},
  ): { url: string; headers: Record<string, string>; body: string } {
    const c = this.call(id);
    const body = JSON.stringify(o.delayed ? { call_id: id, corrected_transcript: { segments: [] }, citations: [] } : c);
    const sig = createHmac('sha256', o.secret ?? this.o.signingSecret)
      .update(body)
      .digest('hex');
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(o.unsigned ? {} : { 'x-webhook-signature': sig }) };
    return { url: this.hooks.get(id)!, headers, body: o.tamper ? body.replace('"call_id"', '"call_id" ') : body };
  }

  deliver(id: string, o: Parameters<BlandFake['webhook']>[1] = {}): Promise<Delivery> {
    const w = this.webhook(id, o);
    return deliver(w.url, w.headers, w.body);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private call(id: string): Record<string, unknown> {
    const c = this.calls.get(id);
    if (!c) throw new Error(`the Bland fake has no call ${id}`);
    return c;
  }

  private route(r: FakeRequest): FakeReply {
    if (r.headers.authorization !== this.o.apiKey) return json(401, { status: 'error', message: 'Invalid API key' });
    if (r.method === 'POST' && r.path === '/v1/calls') return this.create(r);
    const stop = /^\/v1\/calls\/([^/]+)\/stop$/.exec(r.path);
    if (stop && r.method === 'POST') {
      const c = this.calls.get(decodeURIComponent(stop[1]!));
      if (!c || c.completed === true) return json(400, { status: 'error', message: 'SID not found for the given c_id.' });
      this.end(String(c.call_id), { status: 'completed', answered_by: 'human' });
      return json(200, { status: 'success', message: 'Call ended successfully.' });
    }
    const get = /^\/v1\/calls\/([^/]+)$/.exec(r.path);
    if (get && r.method === 'GET') {
      const c = this.calls.get(decodeURIComponent(get[1]!));
      return c ? json(200, c) : json(404, { status: 'error', message: 'Call not found' });
    }
    return json(404, { status: 'error', message: 'Not found' });
  }

  private create(r: FakeRequest): FakeReply {
    const refusal = this.refusals.shift();
    if (refusal) return refusal;
    const b = isJson(r.headers) ? parseBody(r.raw) : null;
    if (!b) return json(400, { status: 'error', message: 'Invalid JSON body' });
    const problem =
      typeof b.phone_number !== 'string' || !E164.test(b.phone_number)
        ? 'phone_number must be a valid phone number in E.164 format'
        : !b.task && !b.pathway_id
          ? 'task or pathway_id is required'
          : b.from !== undefined && (typeof b.from !== 'string' || !E164.test(b.from))
            ? 'from must be an E.164 number'
            : null;
    if (problem) return json(400, { status: 'error', message: problem });
    const live = [...this.calls.values()].filter((c) => c.completed !== true).length;
    if (live >= (this.o.concurrencyLimit ?? 10)) return json(429, { status: 'error', message: 'Concurrency limit reached' });
    const id = randomUUID();
    this.calls.set(id, {
      call_id: id,
      c_id: id,
      to: b.phone_number,
      from: b.from ?? '+15550001111',
      request_data: { phone_number: b.phone_number, wait: false, language: 'ENG' },
      metadata: b.metadata ?? {},
      variables: { phone_number: b.phone_number, call_id: id, ...(b.request_data as object) },
      completed: false,
      inbound: false,
      queue_status: 'queued',
      status: 'queued',
      answered_by: null,
      call_length: 0,
      error_message: null,
      created_at: new Date().toISOString(),
      max_duration: 30,
      analysis: null,
    });
    if (typeof b.webhook === 'string') this.hooks.set(id, b.webhook);
    return json(200, { status: 'success', call_id: id });
  }
}
