/**
 * Bland (https://api.bland.ai). Names below are from docs.bland.ai (api-v1/post/calls "Send
 * Call", api-v1/get/calls-id "Call Details", api-v1/post/calls-id-stop "Stop Active Call",
 * tutorials/webhook-signing, tutorials/post-call-webhooks, platform/billing) and Bland's own
 * examples in Bland-com/bland-ai-cookbooks (07-speed-to-lead: request_data, webhook and the
 * post-call payload; 10-call-analysis: the second, delayed payload with corrected_transcript).
 *
 *   create  POST /v1/calls, authorization: <key> (no "Bearer"), {phone_number, pathway_id | task,
 *           from?, webhook, request_data, metadata, answered_by_enabled} → {status: "success", call_id}
 *   lookup  GET /v1/calls/{call_id} → {completed, queue_status, status, answered_by, call_length, ...}
 *   hang up POST /v1/calls/{call_id}/stop → {status, message}
 *   events  the post-call webhook (terminal): the call details as JSON, X-Webhook-Signature = hex
 *           HMAC-SHA256 of the body with the account's webhook signing secret; 30-60 s later a
 *           second payload with corrected_transcript (not terminal)
 */
import { createHmac } from 'node:crypto';
import { validation } from '../../../errors.js';
import {
  anyText,
  attemptIdFromUrl,
  callVariables,
  checkOptions,
  classifyCreate,
  detail,
  e164,
  ended,
  isTrue,
  joinUrl,
  lookupError,
  mapped,
  num,
  obj,
  parseJson,
  safeEqual,
  str,
  unreadable,
  pathSegment,
} from './shared.js';
import type { InboundEvent, LookupResult, Outcome, Platform } from './types.js';

const NAME = 'bland';

/** queue_status values that end a call with an error before or during it ("complete_error" is after: the call itself was fine) */
const BLAND_QUEUE_ERRORS: Readonly<Record<string, Outcome>> = {
  pre_queue_error: 'failed',
  queue_error: 'failed',
  call_error: 'failed',
};
/** answered_by (set when answered_by_enabled is true); "unknown" and null fall through to status */
const BLAND_ANSWERED_BY: Readonly<Record<string, Outcome>> = {
  human: 'answered',
  voicemail: 'voicemail',
  'no-answer': 'no-answer',
};
/** status, the values Bland's documentation and cookbooks name */
const BLAND_STATUS: Readonly<Record<string, Outcome>> = {
  completed: 'answered',
  'no-answer': 'no-answer',
  failed: 'failed',
};
const FINAL_QUEUE_STATUSES = new Set(['complete', 'completed', 'complete_error', ...Object.keys(BLAND_QUEUE_ERRORS)]);

/** the opt-out key: a variable the pathway extracts, or a key of the call's analysis */
export const BLAND_DNC_KEY = 'do_not_call';

export const bland: Platform = {
  name: NAME,
  defaultBaseUrl: 'https://api.bland.ai',
  requiresWebhookSecret: true,

  parseOptions(options) {
    const o = checkOptions(NAME, options, { pathwayId: anyText, task: anyText, from: e164 });
    if (!o.pathwayId && !o.task) throw validation('bland: missing --provider-option pathwayId=... or task=... (one of them)');
    if (o.pathwayId && o.task) throw validation('bland: give --provider-option pathwayId or task, not both');
    return o;
  },

  async place(call, ctx, signal) {
    const vars = callVariables(call);
    const body = {
      phone_number: call.phoneNumber,
      ...(ctx.options.pathwayId ? { pathway_id: ctx.options.pathwayId } : { task: ctx.options.task }),
      ...(ctx.options.from ? { from: ctx.options.from } : {}),
      webhook: ctx.callbackUrl,
      request_data: vars,
      metadata: vars,
      answered_by_enabled: true,
    };
    const a = await ctx.request({
      method: 'POST',
      url: joinUrl(ctx.baseUrl, '/v1/calls'),
      headers: { authorization: ctx.secret, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      timeoutMs: ctx.timeoutMs,
      signal,
    });
    const refused = classifyCreate(NAME, a);
    if (refused) return refused;
    if (!a.ok) return unreadable(NAME, 'no answer');
    const answer = obj(parseJson(a.text));
    // "status: success or error; call_id present only if status is success"
    if (answer.status === 'error') return { kind: 'finished', success: false, outcome: 'failed', reason: `bland: ${detail(a.text)}` };
    const id = str(answer.call_id);
    if (!id) return unreadable(NAME, `HTTP ${a.status} without a call_id`);
    return { kind: 'accepted', providerCallId: id };
  },

  async lookup(ref, ctx, signal): Promise<LookupResult> {
    if (!ref.providerCallId) return { state: 'not-found' };
    const a = await ctx.request({
      method: 'GET',
      url: joinUrl(ctx.baseUrl, `/v1/calls/${pathSegment(ref.providerCallId)}`),
      headers: { authorization: ctx.secret, accept: 'application/json' },
      timeoutMs: ctx.timeoutMs,
      signal,
    });
    if (a.ok && a.status === 404) return { state: 'not-found' };
    if (!a.ok || a.status < 200 || a.status >= 300) throw lookupError(NAME, a);
    const c = obj(parseJson(a.text));
    if (!str(c.call_id)) {
      if (c.status === 'error') return { state: 'not-found' };
      throw new Error('bland: call details answered without a call');
    }
    if (!isOver(c)) return { state: 'in-progress' };
    return { state: 'ended', ...outcomeOf(c) };
  },

  async hangUp(ref, ctx, signal) {
    if (!ref.providerCallId) throw new Error('bland: cannot hang up a call whose id never came back');
    const a = await ctx.request({
      method: 'POST',
      url: joinUrl(ctx.baseUrl, `/v1/calls/${pathSegment(ref.providerCallId)}/stop`),
      headers: { authorization: ctx.secret, accept: 'application/json' },
      timeoutMs: ctx.timeoutMs,
      signal,
    });
    const answer = a.ok ? obj(parseJson(a.text)) : {};
    if (a.ok && a.status >= 200 && a.status < 300 && answer.status === 'success') return;
    // "SID not found for the given c_id.": no live call to stop, which is what a hang-up wants.
    if (typeof answer.message === 'string' && answer.message.startsWith('SID not found')) return;
    throw lookupError(NAME, a);
  },

  verify(req, ctx) {
    const sig = req.headers['x-webhook-signature'];
    if (!ctx.webhookSecret || sig === undefined) return false;
    return safeEqual(sig, createHmac('sha256', ctx.webhookSecret).update(req.rawBody).digest('hex'));
  },

  parse(req) {
    const c = obj(parseJson(req.rawBody));
    const id = str(c.call_id);
    if (!id) return [];
    // Call details' request_data holds the create request's own parameters, so the echo to read is metadata.
    const attemptId = str(obj(c.metadata).attemptId) ?? attemptIdFromUrl(req.url);
    const base = { providerCallId: id, attemptId };
    // The delayed second payload only corrects the transcript.
    if ('corrected_transcript' in c) return [{ ...base, terminal: false, progress: 'transcript-corrected' }];
    // Live events ({level, message, category, call_id}) are sent only for webhook_events, which leadline does not ask for.
    if (typeof c.category === 'string' && !('completed' in c)) return [{ ...base, terminal: false, progress: c.category }];
    const r = outcomeOf(c);
    return [{ ...base, terminal: true, ...r, ...(r.outcome === 'do-not-call' ? { doNotCall: true } : {}) } satisfies InboundEvent];
  },
};

function isOver(c: Record<string, unknown>): boolean {
  return c.completed === true || FINAL_QUEUE_STATUSES.has(String(c.queue_status));
}

export function outcomeOf(c: Record<string, unknown>) {
  const queue = String(c.queue_status ?? '');
  const answeredBy = String(c.answered_by ?? '');
  const status = String(c.status ?? '');
  const reason =
    str(c.error_message) ?? ([status, answeredBy && `answered_by ${answeredBy}`].filter(Boolean).join(', ') || queue || 'unknown');
  let outcome: Outcome =
    mapped(BLAND_QUEUE_ERRORS, queue) ??
    mapped(BLAND_ANSWERED_BY, answeredBy) ??
    mapped(BLAND_STATUS, status) ??
    (c.completed === true ? 'answered' : 'failed');
  const dnc = isTrue(obj(c.variables)[BLAND_DNC_KEY]) || isTrue(obj(c.analysis)[BLAND_DNC_KEY]);
  if (dnc) outcome = 'do-not-call';
  const minutes = num(c.call_length);
  const seconds = num(c.corrected_duration) ?? (minutes === undefined ? undefined : minutes * 60);
  return ended(outcome, reason, seconds);
}
