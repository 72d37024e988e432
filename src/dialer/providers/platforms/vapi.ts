/**
 * Vapi (https://api.vapi.ai). Names below are from the Vapi OpenAPI document as generated into
 * VapiAI/server-sdk-typescript (CreateCallDto, AssistantOverrides, Server, MonitorPlan, Monitor,
 * Call, CallEndedReason, ServerMessageEndOfCallReport, ServerMessageStatusUpdate, Analysis,
 * HmacAuthenticationPlan) and the docs in VapiAI/docs (calls/call-features "Live Call Control",
 * calls/call-concurrency, server-url/events, server-url/server-authentication).
 *
 *   create  POST /call, Authorization: Bearer <key>, {assistantId, phoneNumberId, customer.number,
 *           assistantOverrides{variableValues, server{url, headers}, serverMessages, monitorPlan}}
 *           → 201 Call {id, monitor.controlUrl, subscriptionLimits.concurrencyBlocked}
 *   lookup  GET /call/{id} → Call {status, endedReason, analysis, startedAt, endedAt}
 *   hang up POST <monitor.controlUrl> {"type":"end-call"}
 *   events  POST {message:{type, call, ...}} to assistantOverrides.server.url; terminal: end-of-call-report
 */
import { createHmac } from 'node:crypto';
import {
  anyText,
  attemptIdFromUrl,
  callVariables,
  checkOptions,
  classifyCreate,
  ended,
  isTrue,
  joinUrl,
  lookupError,
  mapped,
  obj,
  parseJson,
  requireOptions,
  safeEqual,
  secondsBetween,
  str,
  unreadable,
  pathSegment,
} from './shared.js';
import type { CallRef, InboundEvent, LookupResult, Outcome, Platform, PlatformContext } from './types.js';

const NAME = 'vapi';

/**
 * endedReason → outcome. Reasons not listed here end as 'failed' (the pipeline-error-*,
 * call.in-progress.error-* and other call.start.error-* families: something broke, an attempt is
 * spent). Chosen, not documented by Vapi: a silence time-out is 'no-answer' (nobody spoke, so the
 * lead is tried again), and the start errors that free up with time (concurrency, the daily
 * outbound limit, credits, no worker) are 'not-placed' because Vapi never dialled. The no-worker
 * reason of newer schemas, call.in-progress.error-vapifault-worker-not-available, stays 'failed':
 * in progress, the person may have been rung (docs/providers.md).
 */
const VAPI_ENDED_REASONS: Readonly<Record<string, Outcome>> = {
  'assistant-ended-call': 'answered',
  'assistant-said-end-call-phrase': 'answered',
  'assistant-ended-call-with-hangup-task': 'answered',
  'assistant-ended-call-after-message-spoken': 'answered',
  'assistant-forwarded-call': 'answered',
  'customer-ended-call': 'answered',
  'customer-ended-call-before-warm-transfer': 'answered',
  'customer-ended-call-after-warm-transfer-attempt': 'answered',
  'customer-ended-call-during-transfer': 'answered',
  'exceeded-max-duration': 'answered',
  'call.forwarding.operator-busy': 'answered',
  'call.forwarding.no-answer': 'answered',
  'call.in-progress.twilio-completed-call': 'answered',
  'call.in-progress.sip-completed-call': 'answered',
  'vonage-completed': 'answered',
  voicemail: 'voicemail',
  'customer-did-not-answer': 'no-answer',
  'silence-timed-out': 'no-answer',
  'customer-busy': 'busy',
  'manually-canceled': 'canceled',
  'call-deleted': 'canceled',
  'scheduled-call-deleted': 'canceled',
  'call.start.error-subscription-concurrency-limit-reached': 'not-placed',
  'call.start.error-vapi-number-outbound-daily-limit': 'not-placed',
  'call.start.error-subscription-insufficient-credits': 'not-placed',
  'call.start.error-vapifault-worker-not-available': 'not-placed',
};

/** the opt-out key the assistant's analysisPlan.structuredDataSchema should define (boolean) */
export const VAPI_DNC_KEY = 'doNotCall';

/** How far an HMAC-signed webhook's timestamp may be from now. */
const HMAC_WINDOW_MS = 5 * 60 * 1000;

export const vapi: Platform = {
  name: NAME,
  defaultBaseUrl: 'https://api.vapi.ai',
  requiresWebhookSecret: false,

  parseOptions(options) {
    const o = checkOptions(NAME, options, { assistantId: anyText, phoneNumberId: anyText });
    requireOptions(NAME, o, ['assistantId', 'phoneNumberId']);
    return o;
  },

  async place(call, ctx, signal) {
    const body = {
      assistantId: ctx.options.assistantId,
      phoneNumberId: ctx.options.phoneNumberId,
      customer: { number: call.phoneNumber },
      assistantOverrides: {
        variableValues: callVariables(call),
        server: { url: ctx.callbackUrl, headers: { 'X-Vapi-Secret': webhookSecret(ctx) } },
        // Only what leadline reads; the defaults add transcripts and speech updates by the dozen.
        serverMessages: ['status-update', 'end-of-call-report'],
        monitorPlan: { controlEnabled: true },
      },
    };
    const a = await ctx.request({
      method: 'POST',
      url: joinUrl(ctx.baseUrl, '/call'),
      headers: { authorization: `Bearer ${ctx.secret}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      timeoutMs: ctx.timeoutMs,
      signal,
    });
    const refused = classifyCreate(NAME, a);
    if (refused) return refused;
    if (!a.ok) return unreadable(NAME, 'no answer');
    const created = obj(parseJson(a.text));
    // call-concurrency docs: "New calls receive a concurrencyBlocked: true response and do not connect."
    if (obj(created.subscriptionLimits).concurrencyBlocked === true) {
      return { kind: 'not-placed', reason: 'vapi: concurrencyBlocked (all concurrent call slots are busy)' };
    }
    const id = str(created.id);
    if (!id) return unreadable(NAME, `HTTP ${a.status} without a call id`);
    const control = str(obj(created.monitor).controlUrl);
    return { kind: 'accepted', providerCallId: id, ...(control ? { control } : {}) };
  },

  async lookup(ref, ctx, signal): Promise<LookupResult> {
    if (!ref.providerCallId) return { state: 'not-found' };
    const c = await getCall(ref, ctx, signal);
    if (c === null) return { state: 'not-found' };
    if (c.status === 'not-found') return { state: 'not-found' };
    if (c.status !== 'ended') return { state: 'in-progress' };
    return { state: 'ended', ...outcomeOf(c.endedReason, c.analysis, c.startedAt, c.endedAt) };
  },

  async hangUp(ref, ctx, signal) {
    let control = ref.control ?? null;
    if (!control) {
      if (!ref.providerCallId) throw new Error('vapi: cannot hang up a call whose id never came back');
      const c = await getCall(ref, ctx, signal);
      if (c === null || c.status === 'ended') return;
      control = str(obj(c.monitor).controlUrl);
      if (!control) throw new Error('vapi: the call has no monitor.controlUrl to end it with');
    }
    const a = await ctx.request({
      method: 'POST',
      url: control,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'end-call' }),
      timeoutMs: ctx.timeoutMs,
      signal,
    });
    if (a.ok && a.status >= 200 && a.status < 300) return;
    // The control URL lives only while the call does; a call that ended meanwhile is hung up.
    if (ref.providerCallId) {
      const c = await getCall(ref, ctx, signal);
      if (c === null || c.status === 'ended') return;
    }
    throw lookupError(NAME, a);
  },

  verify(req, ctx) {
    const secret = webhookSecret(ctx);
    const h = req.headers;
    // Bearer-token credential: the header leadline asks for per call, or the standard Authorization one.
    if (h['x-vapi-secret'] !== undefined) return safeEqual(h['x-vapi-secret'], secret);
    if (h.authorization !== undefined) return safeEqual(h.authorization, `Bearer ${secret}`);
    // HMAC credential with Vapi's defaults: x-signature = hex HMAC-SHA256 of "{timestamp}.{body}".
    const sig = h['x-signature'];
    const ts = h['x-timestamp'];
    if (sig === undefined || ts === undefined || !/^\d+$/.test(ts)) return false;
    // The reference does not say seconds or milliseconds; both are accepted by magnitude.
    const at = Number(ts) > 1e12 ? Number(ts) : Number(ts) * 1000;
    if (Math.abs(Date.now() - at) > HMAC_WINDOW_MS) return false;
    const expected = createHmac('sha256', secret).update(`${ts}.${req.rawBody}`).digest('hex');
    return safeEqual(sig.replace(/^sha256=/, ''), expected);
  },

  parse(req) {
    const message = obj(obj(parseJson(req.rawBody)).message);
    const type = str(message.type);
    if (!type) return [];
    const c = obj(message.call);
    const vars = obj(obj(c.assistantOverrides).variableValues);
    const base = { providerCallId: str(c.id), attemptId: str(vars.attemptId) ?? attemptIdFromUrl(req.url) };
    if (type === 'end-of-call-report') {
      const r = outcomeOf(
        message.endedReason ?? c.endedReason,
        message.analysis ?? c.analysis,
        message.startedAt ?? c.startedAt,
        message.endedAt ?? c.endedAt,
      );
      return [{ ...base, terminal: true, ...r, ...(r.outcome === 'do-not-call' ? { doNotCall: true } : {}) } satisfies InboundEvent];
    }
    const progress = type === 'status-update' ? (str(message.status) ?? type) : type;
    return [{ ...base, terminal: false, progress }];
  },
};

/** ctx.webhookSecret, or one derived from the API key so that no setup is needed (the key itself never leaves leadline). */
export function webhookSecret(ctx: Pick<PlatformContext, 'secret' | 'webhookSecret'>): string {
  return ctx.webhookSecret ?? createHmac('sha256', ctx.secret).update('leadline vapi webhook').digest('hex');
}

export function outcomeOf(endedReason: unknown, analysis: unknown, startedAt: unknown, endedAt: unknown) {
  const reason = str(endedReason) ?? 'unknown';
  const dnc = isTrue(obj(obj(analysis).structuredData)[VAPI_DNC_KEY]);
  const outcome: Outcome = dnc ? 'do-not-call' : (mapped(VAPI_ENDED_REASONS, reason) ?? 'failed');
  return ended(outcome, reason, secondsBetween(startedAt, endedAt));
}

async function getCall(ref: CallRef, ctx: PlatformContext, signal: AbortSignal): Promise<Record<string, unknown> | null> {
  const a = await ctx.request({
    method: 'GET',
    url: joinUrl(ctx.baseUrl, `/call/${pathSegment(ref.providerCallId ?? '')}`),
    headers: { authorization: `Bearer ${ctx.secret}`, accept: 'application/json' },
    timeoutMs: ctx.timeoutMs,
    signal,
  });
  if (a.ok && a.status === 404) return null;
  if (!a.ok || a.status < 200 || a.status >= 300) throw lookupError(NAME, a);
  const c = obj(parseJson(a.text));
  if (!str(c.id)) throw new Error('vapi: GET /call answered without a call');
  return c;
}
