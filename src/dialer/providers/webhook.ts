/**
 * Hands each call to the client's telephony system:
 *
 *   POST <provider-url>  {"attemptId","leadId","campaignId","phoneNumber","externalId","metadata","attempt"}
 *   Idempotency-Key: <attemptId>
 *   X-Leadline-Signature: sha256=<hex HMAC-SHA256 of the raw body>  (and the Standard Webhooks headers)
 *
 * The answer says how it went:
 * - 200 {"success": boolean, "outcome": string, "reason"?: string, "durationSeconds"?: number}: the call is over;
 * - 202 {"accepted": true, "callId"?: string}: the call was placed and its outcome comes later, to
 *   POST /api/v1/attempts/{attemptId}/outcome; the attempt holds its concurrency slot until then;
 * - a refused connection, a 429 or a 5xx: nothing was placed, and no attempt is spent;
 * - any other 4xx: the receiver refused this call, a failed attempt;
 * - no answer in time, or an answer that cannot be read: the receiver may have placed it, so the
 *   attempt waits for an outcome report until the campaign's call timeout.
 */
import { defaultHttpRequester } from '../../net/http.js';
import type { HttpRequester } from './platforms/types.js';
import { retryAfterMs } from './platforms/shared.js';
import { signatureHeaders } from '../signed-post.js';
import type { CallProvider, PlaceResult } from './types.js';

export interface WebhookOptions {
  url: string;
  secret: string | null;
  /** how long the receiver may take to answer */
  timeoutMs: number;
  request?: HttpRequester;
}

const MAX_TEXT = 200;
const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v.slice(0, MAX_TEXT) : undefined);

function answerOf(status: number, body: string, headers: Record<string, string | undefined>): PlaceResult {
  if (status === 429 || status >= 500) {
    return {
      kind: 'not-placed',
      reason: `webhook: answered HTTP ${status}`,
      ...(status === 429 ? { retryAfterMs: retryAfterMs(headers) } : {}),
    };
  }
  if (status >= 400)
    return { kind: 'finished', success: false, outcome: 'failed', reason: `webhook: refused the call with HTTP ${status}` };
  let a: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) a = parsed as Record<string, unknown>;
  } catch {
    // an unreadable answer to a call that may have been placed: left open below
  }
  if (status === 202 && a?.accepted === true) return { kind: 'accepted', providerCallId: text(a.callId) ?? null };
  if (status >= 200 && status < 300 && a && typeof a.success === 'boolean' && typeof a.outcome === 'string' && a.outcome !== '') {
    const reason = text(a.reason);
    const durationSeconds = typeof a.durationSeconds === 'number' && a.durationSeconds >= 0 ? a.durationSeconds : undefined;
    return {
      kind: 'finished',
      success: a.success,
      outcome: a.outcome.slice(0, MAX_TEXT),
      ...(reason ? { reason } : {}),
      ...(durationSeconds === undefined ? {} : { durationSeconds }),
    };
  }
  return { kind: 'unknown', reason: `webhook: HTTP ${status}, not {"success", "outcome"} or {"accepted": true}` };
}

export function webhookProvider(o: WebhookOptions): CallProvider {
  const request = o.request ?? defaultHttpRequester;
  return {
    async place(call, signal): Promise<PlaceResult> {
      const body = JSON.stringify({
        attemptId: call.attemptId,
        leadId: call.leadId,
        campaignId: call.campaignId,
        phoneNumber: call.phoneNumber,
        externalId: call.externalId,
        metadata: call.metadata,
        attempt: call.attempt,
      });
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json',
        'idempotency-key': call.attemptId,
        ...signatureHeaders(body, o.secret, call.attemptId),
      };
      const answer = await request({ method: 'POST', url: o.url, headers, body, timeoutMs: o.timeoutMs, signal });
      if (answer.ok) return answerOf(answer.status, answer.text, answer.headers);
      // nothing reached the receiver: not placed; otherwise it may have placed the call
      return answer.sent
        ? { kind: 'unknown', reason: `webhook: ${answer.reason}` }
        : { kind: 'not-placed', reason: `webhook: ${answer.reason}` };
    },
  };
}
