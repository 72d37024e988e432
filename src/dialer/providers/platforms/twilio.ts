/**
 * Twilio Programmable Voice (https://api.twilio.com). Names below are from Twilio's OpenAPI
 * document (twilio/twilio-oai spec/json/twilio_api_v2010.json) as generated into twilio/twilio-node
 * (src/rest/api/v2010/account/call.ts: the create and update form fields, CallResource, CallStatus),
 * twilio-node src/webhooks/webhooks.ts (the X-Twilio-Signature algorithm), and twilio.com/docs
 * (voice/api/call-resource: 1 call per second by default; voice/answering-machine-detection;
 * api/errors/20429).
 *
 *   create  POST /2010-04-01/Accounts/{AccountSid}/Calls.json, HTTP Basic AccountSid:AuthToken,
 *           form-encoded To, From, Url, StatusCallback, StatusCallbackEvent (repeated),
 *           MachineDetection, AsyncAmd, AsyncAmdStatusCallback → 201 {sid, status, ...}
 *   lookup  GET  .../Calls/{Sid}.json → {status, answered_by, duration}
 *   hang up POST .../Calls/{Sid}.json Status=canceled (queued, ringing) or completed (in progress)
 *   events  form-encoded status callbacks (CallSid, CallStatus, CallDuration, AnsweredBy, ...) and
 *           the async AMD callback (CallSid, AnsweredBy); terminal: a final CallStatus
 */
import { createHmac } from 'node:crypto';
import {
  asStrings,
  attemptIdFromUrl,
  callVariables,
  checkOptions,
  classifyCreate,
  e164,
  ended,
  joinUrl,
  lookupError,
  mapped,
  num,
  obj,
  type OptionCheck,
  parseJson,
  requireOptions,
  safeEqual,
  str,
  unreadable,
  pathSegment,
} from './shared.js';
import type { CallRef, LookupResult, Outcome, Platform, PlatformContext } from './types.js';

const NAME = 'twilio';

/** CallStatus / status values after which nothing more happens to the call */
const TWILIO_FINAL_STATUSES: Readonly<Record<string, Outcome>> = {
  completed: 'answered',
  busy: 'busy',
  'no-answer': 'no-answer',
  failed: 'failed',
  canceled: 'canceled',
};
/** AnsweredBy (answering machine detection) refines a completed call; human and unknown stay 'answered' */
const TWILIO_ANSWERED_BY: Readonly<Record<string, Outcome>> = {
  machine_start: 'voicemail',
  machine_end_beep: 'voicemail',
  machine_end_silence: 'voicemail',
  machine_end_other: 'voicemail',
  fax: 'failed',
};
/** statuses in which Status=canceled applies; any other live call is ended with Status=completed */
const NOT_YET_ANSWERED = new Set(['queued', 'initiated', 'ringing']);

const accountSid: OptionCheck = (v) => (/^AC[0-9a-zA-Z]{32}$/.test(v) ? null : 'must be the 34-character Account SID starting with AC');
const absoluteUrl: OptionCheck = (v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || u.protocol === 'http:' ? null : 'must be an http(s) URL';
  } catch {
    return `must be an absolute URL, not "${v}"`;
  }
};

export const twilio: Platform = {
  name: NAME,
  defaultBaseUrl: 'https://api.twilio.com',
  requiresWebhookSecret: false,

  parseOptions(options) {
    const o = checkOptions(NAME, options, { accountSid, from: e164, url: absoluteUrl });
    requireOptions(NAME, o, ['accountSid', 'from', 'url']);
    return o;
  },

  async place(call, ctx, signal) {
    // The variables travel in the TwiML app's URL: Twilio requests it when the call connects.
    // The operator's own parameters in that URL win over a lead's metadata of the same name: a
    // lead (a vendor's campaign key may create them) must not switch the agent's flow or break a
    // token the TwiML app checks, as callVariables already keeps leadId and attemptId.
    const app = new URL(ctx.options.url!);
    const operators = new Set(app.searchParams.keys());
    for (const [k, v] of Object.entries(asStrings(callVariables(call)))) if (!operators.has(k)) app.searchParams.set(k, v);
    const form = new URLSearchParams([
      ['To', call.phoneNumber],
      ['From', ctx.options.from!],
      ['Url', app.toString()],
      ['StatusCallback', ctx.callbackUrl],
      ['StatusCallbackMethod', 'POST'],
      ...['initiated', 'ringing', 'answered', 'completed'].map((e) => ['StatusCallbackEvent', e]),
      // Asynchronous detection does not hold up the agent's first words; its verdict arrives as a
      // callback of its own, and on the call resource (answered_by) for reconciliation.
      ['MachineDetection', 'Enable'],
      ['AsyncAmd', 'true'],
      ['AsyncAmdStatusCallback', ctx.callbackUrl],
      ['AsyncAmdStatusCallbackMethod', 'POST'],
    ]);
    const a = await ctx.request({
      method: 'POST',
      url: callsUrl(ctx),
      headers: { ...auth(ctx), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      timeoutMs: ctx.timeoutMs,
      signal,
    });
    // 429 with code 20429: "Requests that receive 429 responses aren't processed and are safe to retry."
    const refused = classifyCreate(NAME, a);
    if (refused) return refused;
    if (!a.ok) return unreadable(NAME, 'no answer');
    const sid = str(obj(parseJson(a.text)).sid);
    if (!sid) return unreadable(NAME, `HTTP ${a.status} without a call sid`);
    return { kind: 'accepted', providerCallId: sid };
  },

  async lookup(ref, ctx, signal): Promise<LookupResult> {
    if (!ref.providerCallId) return { state: 'not-found' };
    const c = await getCall(ref, ctx, signal);
    if (c === null) return { state: 'not-found' };
    const status = String(c.status);
    if (!isFinal(status)) return { state: 'in-progress' };
    return { state: 'ended', ...outcomeOf(status, c.answered_by, c.duration) };
  },

  async hangUp(ref, ctx, signal) {
    if (!ref.providerCallId) throw new Error('twilio: cannot hang up a call whose sid never came back');
    const c = await getCall(ref, ctx, signal);
    if (c === null || isFinal(String(c.status))) return;
    const a = await ctx.request({
      method: 'POST',
      url: callUrl(ctx, ref.providerCallId),
      headers: { ...auth(ctx), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ Status: NOT_YET_ANSWERED.has(String(c.status)) ? 'canceled' : 'completed' }).toString(),
      timeoutMs: ctx.timeoutMs,
      signal,
    });
    if (a.ok && a.status >= 200 && a.status < 300) return;
    // The call may have moved on (answered, or ended) between the two requests.
    const again = await getCall(ref, ctx, signal);
    if (again === null || isFinal(String(again.status))) return;
    throw lookupError(NAME, a);
  },

  verify(req, ctx) {
    const sig = req.headers['x-twilio-signature'];
    if (sig === undefined) return false;
    const params = formParams(req.rawBody);
    // As twilio-node does: Twilio signs the URL with or without the port, so either may match.
    return urlVariants(req.url).some((url) => safeEqual(sig, signature(ctx.secret, url, params)));
  },

  parse(req) {
    const p = new URLSearchParams(req.rawBody);
    const sid = p.get('CallSid');
    if (!sid) return [];
    const base = { providerCallId: sid, attemptId: attemptIdFromUrl(req.url) };
    const status = p.get('CallStatus');
    if (status && isFinal(status)) {
      const ended = outcomeOf(status, p.get('AnsweredBy'), p.get('CallDuration'));
      // a completed call without the detection's verdict: the call resource has it (answered_by)
      const confirm = status === 'completed' && !p.get('AnsweredBy');
      return [{ ...base, terminal: true, ...ended, ...(confirm ? { confirm } : {}) }];
    }
    const answeredBy = p.get('AnsweredBy');
    if (!status && answeredBy) return [{ ...base, terminal: false, progress: `answered-by-${answeredBy}` }];
    return [{ ...base, terminal: false, progress: status ?? 'unknown' }];
  },
};

function isFinal(status: string): boolean {
  return mapped(TWILIO_FINAL_STATUSES, status) !== undefined;
}

export function outcomeOf(status: string, answeredBy: unknown, duration: unknown) {
  let outcome: Outcome = mapped(TWILIO_FINAL_STATUSES, status) ?? 'failed';
  const by = typeof answeredBy === 'string' ? answeredBy : '';
  if (outcome === 'answered') outcome = mapped(TWILIO_ANSWERED_BY, by) ?? outcome;
  return ended(outcome, by ? `${status}, answered by ${by}` : status, num(duration));
}

/** data = URL + every parameter name and value, names sorted; base64 HMAC-SHA1 with the auth token */
export function signature(authToken: string, url: string, params: Record<string, string[]>): string {
  // The URL as given: parsing it again would drop a default port that Twilio may have signed.
  let data = url;
  for (const key of Object.keys(params).sort()) {
    for (const value of [...new Set(params[key])].sort()) data += key + value;
  }
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf-8')).digest('base64');
}

export function formParams(body: string): Record<string, string[]> {
  // No prototype: a parameter named __proto__ is a parameter like any other.
  const out: Record<string, string[]> = Object.create(null);
  for (const [k, v] of new URLSearchParams(body)) (out[k] ??= []).push(v);
  return out;
}

function urlVariants(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const without = new URL(u.toString());
  without.port = '';
  if (u.port) return [u.toString(), without.toString()];
  // URL drops default ports, so the "with port" form is built as text.
  const port = u.protocol === 'https:' ? '443' : '80';
  return [
    u.toString(),
    `${u.protocol}//${u.username}${u.password ? `:${u.password}` : ''}${u.username || u.password ? '@' : ''}${u.host}:${port}${u.pathname}${u.search}${u.hash}`,
  ];
}

function auth(ctx: PlatformContext): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${ctx.options.accountSid}:${ctx.secret}`).toString('base64')}` };
}

function callsUrl(ctx: PlatformContext): string {
  return joinUrl(ctx.baseUrl, `/2010-04-01/Accounts/${encodeURIComponent(ctx.options.accountSid!)}/Calls.json`);
}

function callUrl(ctx: PlatformContext, sid: string): string {
  return joinUrl(ctx.baseUrl, `/2010-04-01/Accounts/${encodeURIComponent(ctx.options.accountSid!)}/Calls/${pathSegment(sid)}.json`);
}

async function getCall(ref: CallRef, ctx: PlatformContext, signal: AbortSignal): Promise<Record<string, unknown> | null> {
  const a = await ctx.request({
    method: 'GET',
    url: callUrl(ctx, ref.providerCallId ?? ''),
    headers: { ...auth(ctx), accept: 'application/json' },
    timeoutMs: ctx.timeoutMs,
    signal,
  });
  if (a.ok && a.status === 404) return null;
  if (!a.ok || a.status < 200 || a.status >= 300) throw lookupError(NAME, a);
  const c = obj(parseJson(a.text));
  if (!str(c.sid)) throw new Error('twilio: the call resource came back without a sid');
  return c;
}
