/**
 * Retell (https://api.retellai.com). Names below are from Retell's OpenAPI document as generated
 * into RetellAI/retell-typescript-sdk (src/resources/call.ts: CallCreatePhoneCallParams with
 * agent_override.agent.webhook_url, PhoneCallResponse, disconnection_reason, call_analysis;
 * src/lib/webhook_auth.ts: the signature) and docs.retellai.com (features/webhook-overview,
 * features/secure-webhook, deploy/concurrency).
 *
 *   create  POST /v2/create-phone-call, Authorization: Bearer <key>, {from_number, to_number,
 *           override_agent_id?, metadata, retell_llm_dynamic_variables (strings),
 *           agent_override.agent.webhook_url} → 201 {call_id, call_status: "registered", ...}
 *   lookup  GET /v2/get-call/{call_id} → {call_status, disconnection_reason, call_analysis, duration_ms}
 *   hang up POST /v2/stop-call/{call_id}
 *   events  POST {event, call}; call_started, call_ended (terminal), call_analyzed (after it, with
 *           call_analysis), transcript_updated, transfer_*; x-retell-signature: v=<ms>,d=<hex>
 */
import { createHmac } from 'node:crypto';
import {
  anyText,
  asStrings,
  attemptIdFromUrl,
  callVariables,
  checkOptions,
  classifyCreate,
  e164,
  ended,
  isTrue,
  joinUrl,
  lookupError,
  mapped,
  num,
  obj,
  parseJson,
  requireOptions,
  safeEqual,
  str,
  unreadable,
  pathSegment,
} from './shared.js';
import type { CallRef, InboundEvent, LookupResult, Outcome, Platform, PlatformContext } from './types.js';

const NAME = 'retell';

/**
 * disconnection_reason → outcome; reasons not listed (error_*, registered_call_timeout, dial_failed,
 * invalid_destination, the telephony and spam ones) end as 'failed'. Chosen, not documented by
 * Retell: inactivity and ivr_reached are 'no-answer' (no person was reached, so the lead is tried
 * again), user_declined is 'busy' (the phone rang and was rejected), and the reasons where Retell
 * never dialled (concurrency, no valid payment) are 'not-placed'.
 */
const RETELL_DISCONNECTION_REASONS: Readonly<Record<string, Outcome>> = {
  user_hangup: 'answered',
  agent_hangup: 'answered',
  call_transfer: 'answered',
  transfer_bridged: 'answered',
  transfer_cancelled: 'answered',
  max_duration_reached: 'answered',
  call_take_over: 'answered',
  voicemail_reached: 'voicemail',
  dial_no_answer: 'no-answer',
  inactivity: 'no-answer',
  ivr_reached: 'no-answer',
  dial_busy: 'busy',
  user_declined: 'busy',
  manual_stopped: 'canceled',
  concurrency_limit_reached: 'not-placed',
  no_concurrency_fallback: 'not-placed',
  no_valid_payment: 'not-placed',
};

/** the opt-out key: a boolean item named so in the agent's post-call analysis (custom_analysis_data) */
export const RETELL_DNC_KEY = 'do_not_call';

/** webhook_auth.ts: a signature older or newer than five minutes is refused */
const SIGNATURE_WINDOW_MS = 5 * 60 * 1000;

export const retell: Platform = {
  name: NAME,
  defaultBaseUrl: 'https://api.retellai.com',
  requiresWebhookSecret: false,

  parseOptions(options) {
    const o = checkOptions(NAME, options, { fromNumber: e164, agentId: anyText });
    requireOptions(NAME, o, ['fromNumber']);
    return o;
  },

  async place(call, ctx, signal) {
    const vars = callVariables(call);
    const body = {
      from_number: ctx.options.fromNumber,
      to_number: call.phoneNumber,
      ...(ctx.options.agentId ? { override_agent_id: ctx.options.agentId } : {}),
      metadata: vars,
      retell_llm_dynamic_variables: asStrings(vars),
      agent_override: { agent: { webhook_url: ctx.callbackUrl } },
    };
    const a = await ctx.request({
      method: 'POST',
      url: joinUrl(ctx.baseUrl, '/v2/create-phone-call'),
      headers: { authorization: `Bearer ${ctx.secret}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      timeoutMs: ctx.timeoutMs,
      signal,
    });
    const refused = classifyCreate(NAME, a);
    if (refused) return refused;
    if (!a.ok) return unreadable(NAME, 'no answer');
    const id = str(obj(parseJson(a.text)).call_id);
    if (!id) return unreadable(NAME, `HTTP ${a.status} without a call_id`);
    return { kind: 'accepted', providerCallId: id };
  },

  async lookup(ref, ctx, signal): Promise<LookupResult> {
    if (!ref.providerCallId) return { state: 'not-found' };
    const c = await getCall(ref.providerCallId, ctx, signal);
    if (c === null) return { state: 'not-found' };
    if (c.call_status === 'registered' || c.call_status === 'ongoing') return { state: 'in-progress' };
    return { state: 'ended', ...outcomeOf(c, true) };
  },

  async hangUp(ref: CallRef, ctx, signal) {
    if (!ref.providerCallId) throw new Error('retell: cannot hang up a call whose id never came back');
    const a = await ctx.request({
      method: 'POST',
      url: joinUrl(ctx.baseUrl, `/v2/stop-call/${pathSegment(ref.providerCallId)}`),
      headers: { authorization: `Bearer ${ctx.secret}`, accept: '*/*' },
      timeoutMs: ctx.timeoutMs,
      signal,
    });
    if (a.ok && a.status >= 200 && a.status < 300) return;
    const c = await getCall(ref.providerCallId, ctx, signal);
    if (c === null || (c.call_status !== 'registered' && c.call_status !== 'ongoing')) return;
    throw lookupError(NAME, a);
  },

  verify(req, ctx) {
    const m = /^v=(\d+),d=([0-9a-f]+)$/.exec(req.headers['x-retell-signature'] ?? '');
    if (!m) return false;
    const stamp = m[1]!;
    if (Math.abs(Date.now() - Number(stamp)) > SIGNATURE_WINDOW_MS) return false;
    // Only the API key with the webhook badge signs; --provider-webhook-secret names it when it is not --provider-secret.
    const expected = createHmac('sha256', ctx.webhookSecret ?? ctx.secret)
      .update(req.rawBody + stamp)
      .digest('hex');
    return safeEqual(m[2]!, expected);
  },

  parse(req) {
    const body = obj(parseJson(req.rawBody));
    const event = str(body.event);
    if (!event) return [];
    const c = obj(body.call);
    const attemptId = str(obj(c.metadata).attemptId) ?? str(obj(c.retell_llm_dynamic_variables).attemptId) ?? attemptIdFromUrl(req.url);
    const base = { providerCallId: str(c.call_id), attemptId };
    const dnc = isTrue(obj(obj(c.call_analysis).custom_analysis_data)[RETELL_DNC_KEY]);
    // with an opt-out, the number called (to_number, as leadline sent it): the attempt may hold only its digest by then (inbound.ts)
    const to = str(c.to_number);
    const optOut = { doNotCall: true, ...(to ? { phoneNumber: to } : {}) };
    if (event === 'call_ended') {
      // call_ended carries the call without call_analysis, so a voicemail verdict from the
      // analysis cannot count here; disconnection_reason decides.
      const r = outcomeOf(c, false);
      return [{ ...base, terminal: true, ...r, ...(dnc || r.outcome === 'do-not-call' ? optOut : {}) } satisfies InboundEvent];
    }
    // call_analyzed comes after call_ended and enriches it: an opt-out found by the analysis is
    // reported here (doNotCall) without touching the outcome call_ended decided.
    const progress = event === 'call_analyzed' ? 'analyzed' : event;
    return [{ ...base, terminal: false, progress, ...(dnc ? optOut : {}) }];
  },
};

/** `useAnalysis`: lookup sees the whole call, so the analysis' voicemail and opt-out verdicts count. */
export function outcomeOf(c: Record<string, unknown>, useAnalysis: boolean) {
  const analysis = obj(c.call_analysis);
  const reason = str(c.disconnection_reason) ?? str(c.call_status) ?? 'unknown';
  let outcome: Outcome = mapped(RETELL_DISCONNECTION_REASONS, reason) ?? 'failed';
  if (isTrue(obj(analysis.custom_analysis_data)[RETELL_DNC_KEY])) outcome = 'do-not-call';
  else if (useAnalysis && outcome === 'answered' && analysis.in_voicemail === true) outcome = 'voicemail';
  const ms = num(c.duration_ms) ?? diff(num(c.start_timestamp), num(c.end_timestamp));
  return ended(outcome, reason, ms === undefined ? undefined : ms / 1000);
}

function diff(start?: number, end?: number): number | undefined {
  return start !== undefined && end !== undefined && end >= start ? end - start : undefined;
}

async function getCall(id: string, ctx: PlatformContext, signal: AbortSignal): Promise<Record<string, unknown> | null> {
  const a = await ctx.request({
    method: 'GET',
    url: joinUrl(ctx.baseUrl, `/v2/get-call/${pathSegment(id)}`),
    headers: { authorization: `Bearer ${ctx.secret}`, accept: 'application/json' },
    timeoutMs: ctx.timeoutMs,
    signal,
  });
  if (a.ok && a.status === 404) return null;
  if (!a.ok || a.status < 200 || a.status >= 300) throw lookupError(NAME, a);
  const c = obj(parseJson(a.text));
  if (!str(c.call_id)) throw new Error('retell: get-call answered without a call');
  return c;
}
