/**
 * A local Twilio Programmable Voice, following Twilio's OpenAPI document (twilio_api_v2010, as
 * generated into twilio-node: the Calls create/fetch/update fields and CallResource) and
 * twilio.com/docs (call-resource, answering-machine-detection, errors 20429 and 21211):
 *   POST /2010-04-01/Accounts/{Sid}/Calls.json        HTTP Basic AccountSid:AuthToken, form-encoded;
 *                                                     To (21211 if not E.164), From and Url required;
 *                                                     201 with the call resource; 429 code 20429
 *   GET  /2010-04-01/Accounts/{Sid}/Calls/{CallSid}.json   the call, or 404 code 20404
 *   POST /2010-04-01/Accounts/{Sid}/Calls/{CallSid}.json   Status=canceled (queued, ringing) or
 *                                                     completed (in progress) ends the call
 *   webhooks  form-encoded status callbacks to StatusCallback for the StatusCallbackEvent values
 *             asked for, and the async AMD result to AsyncAmdStatusCallback; X-Twilio-Signature =
 *             base64 HMAC-SHA1 (auth token) of the URL followed by every parameter name and value,
 *             names sorted (written here from twilio-node's webhooks.ts, independently of the adapter)
 * Assumed where the reference is silent: the error bodies for a missing From or Url carry no code.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { type Delivery, deliver, E164, FakeHttp, type FakeReply, type FakeRequest, json, type Misbehaviour } from './base.js';

export interface TwilioFakeOptions {
  accountSid: string;
  authToken: string;
}

const FINAL = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

export class TwilioFake {
  readonly calls = new Map<string, Record<string, unknown>>();
  /** the create parameters of each call, as Twilio received them */
  readonly params = new Map<string, URLSearchParams>();
  private refusals: FakeReply[] = [];
  private sequence = new Map<string, number>();

  private constructor(
    readonly http: FakeHttp,
    private readonly o: TwilioFakeOptions,
  ) {}

  static async start(o: TwilioFakeOptions): Promise<TwilioFake> {
    let fake: TwilioFake | undefined;
    const http = await FakeHttp.start((r) => fake!.route(r));
    fake = new TwilioFake(http, o);
    return fake;
  }

  get baseUrl(): string {
    return this.http.url;
  }
  creates(): FakeRequest[] {
    return this.http.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls.json'));
  }
  refuseNextCreate(headers?: Record<string, string>): void {
    this.refusals.push(
      json(429, { code: 20429, message: 'Too Many Requests', more_info: 'https://www.twilio.com/docs/errors/20429', status: 429 }, headers),
    );
  }
  next(m: Misbehaviour): void {
    this.http.next(m);
  }
  forget(sid: string): void {
    this.calls.delete(sid);
  }
  setStatus(sid: string, status: string, o: { duration?: number; answeredBy?: string } = {}): void {
    Object.assign(this.call(sid), {
      status,
      ...(FINAL.has(status) ? { duration: String(o.duration ?? 0), end_time: 'Tue, 01 Jan 2030 10:01:00 +0000' } : {}),
      ...(o.answeredBy ? { answered_by: o.answeredBy } : {}),
    });
  }

  /** a status callback for the call's current status, or the async AMD callback (`amd`) */
  webhook(
    sid: string,
    o: { amd?: boolean; token?: string; tamper?: boolean; unsigned?: boolean; withoutAnsweredBy?: boolean } = {},
  ): { url: string; headers: Record<string, string>; body: string } {
    const c = this.call(sid);
    const p = this.params.get(sid)!;
    const seq = this.sequence.get(sid) ?? 0;
    this.sequence.set(sid, seq + 1);
    const fields: Record<string, string> = o.amd
      ? { AccountSid: this.o.accountSid, CallSid: sid, AnsweredBy: String(c.answered_by ?? 'unknown'), MachineDetectionDuration: '2400' }
      : {
          AccountSid: this.o.accountSid,
          ApiVersion: '2010-04-01',
          CallSid: sid,
          CallStatus: String(c.status),
          CallbackSource: 'call-progress-events',
          Called: String(c.to),
          Caller: String(c.from),
          Direction: 'outbound-api',
          From: String(c.from),
          SequenceNumber: String(seq),
          Timestamp: new Date().toUTCString(),
          To: String(c.to),
          ...(FINAL.has(String(c.status)) ? { CallDuration: String(c.duration ?? 0) } : {}),
          // whether Twilio repeats the asynchronous verdict here is not documented; it is on the call resource
          ...(c.answered_by && !o.withoutAnsweredBy ? { AnsweredBy: String(c.answered_by) } : {}),
        };
    const url = (o.amd ? p.get('AsyncAmdStatusCallback') : p.get('StatusCallback'))!;
    const body = new URLSearchParams(fields).toString();
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (!o.unsigned) headers['x-twilio-signature'] = sign(o.token ?? this.o.authToken, url, fields);
    return { url, headers, body: o.tamper ? body.replace('CallStatus=', 'CallStatus=x') : body };
  }

  deliver(sid: string, o: Parameters<TwilioFake['webhook']>[1] = {}): Promise<Delivery> {
    const w = this.webhook(sid, o);
    return deliver(w.url, w.headers, w.body);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private call(sid: string): Record<string, unknown> {
    const c = this.calls.get(sid);
    if (!c) throw new Error(`the Twilio fake has no call ${sid}`);
    return c;
  }

  private route(r: FakeRequest): FakeReply {
    const m = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls(?:\/([^/]+))?\.json$/.exec(r.path);
    if (!m) return json(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    const [user, pass] = Buffer.from(String(r.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':');
    if (
      !String(r.headers.authorization ?? '').startsWith('Basic ') ||
      user !== this.o.accountSid ||
      pass !== this.o.authToken ||
      m[1] !== this.o.accountSid
    ) {
      return json(401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
    }
    const sid = m[2];
    if (!sid && r.method === 'POST') return this.create(r);
    const c = sid ? this.calls.get(sid) : undefined;
    if (!c)
      return json(404, {
        code: 20404,
        message: `The requested resource ${r.path} was not found`,
        more_info: 'https://www.twilio.com/docs/errors/20404',
        status: 404,
      });
    if (r.method === 'GET') return json(200, c);
    if (r.method === 'POST') {
      const status = new URLSearchParams(r.raw).get('Status');
      if (status === 'canceled' && ['queued', 'ringing'].includes(String(c.status))) this.setStatus(sid!, 'canceled');
      if (status === 'completed' && c.status === 'in-progress') this.setStatus(sid!, 'completed');
      return json(200, c);
    }
    return json(405, { message: 'Method not allowed', status: 405 });
  }

  private create(r: FakeRequest): FakeReply {
    const refusal = this.refusals.shift();
    if (refusal) return refusal;
    if (!/^application\/x-www-form-urlencoded\b/i.test(String(r.headers['content-type'] ?? '')))
      return json(400, { message: 'Content-Type must be application/x-www-form-urlencoded', status: 400 });
    const p = new URLSearchParams(r.raw);
    const to = p.get('To') ?? '';
    if (!E164.test(to))
      return json(400, {
        code: 21211,
        message: `Invalid 'To' Phone Number: ${to}`,
        more_info: 'https://www.twilio.com/docs/errors/21211',
        status: 400,
      });
    if (!p.get('From')) return json(400, { message: "Required parameter 'From' missing.", status: 400 });
    if (!p.get('Url') && !p.get('Twiml') && !p.get('ApplicationSid'))
      return json(400, { message: "Required parameter 'Url' missing.", status: 400 });
    const sid = `CA${randomBytes(16).toString('hex')}`;
    const call: Record<string, unknown> = {
      sid,
      account_sid: this.o.accountSid,
      to,
      from: p.get('From'),
      status: 'queued',
      direction: 'outbound-api',
      answered_by: null,
      duration: null,
      start_time: null,
      end_time: null,
      api_version: '2010-04-01',
      uri: `/2010-04-01/Accounts/${this.o.accountSid}/Calls/${sid}.json`,
    };
    this.calls.set(sid, call);
    this.params.set(sid, p);
    return json(201, call);
  }
}

function sign(token: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, k) => acc + k + params[k], url);
  return createHmac('sha1', token).update(Buffer.from(data, 'utf-8')).digest('base64');
}
