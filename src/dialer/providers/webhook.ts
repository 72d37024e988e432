/**
 * Hands each call to the client's telephony system:
 *
 *   POST <provider-url>  {"leadId","campaignId","phoneNumber","externalId","metadata","attempt"}
 *   X-Leadline-Signature: sha256=<hex HMAC-SHA256 of the raw body>
 *   answer: {"success": boolean, "outcome": string, "reason"?: string}
 *
 * The system answers when the call is over. No answer within the timeout,
 * a non-2xx answer or one of the wrong shape is a failed attempt.
 */
import { signedPost } from '../signed-post.js';
import { ABORTED, type CallProvider, type CallResult } from './types.js';

export interface WebhookOptions {
  url: string;
  secret: string | null;
  timeoutMs: number;
}

const MAX_TEXT = 200;

export function webhookProvider(o: WebhookOptions): CallProvider {
  return {
    async call(request, signal): Promise<CallResult> {
      const answer = await signedPost({ url: o.url, body: request, secret: o.secret, timeoutMs: o.timeoutMs, signal });
      if (!answer.ok && signal.aborted) return { success: false, outcome: ABORTED, reason: 'the dialer is shutting down' };
      if (!answer.ok) return { success: false, outcome: 'provider-error', reason: `webhook: ${answer.reason}` };
      const a = answer.json as { success?: unknown; outcome?: unknown; reason?: unknown } | null;
      if (typeof a?.success !== 'boolean' || typeof a.outcome !== 'string' || a.outcome === '') {
        return { success: false, outcome: 'provider-error', reason: 'webhook: answer is not {"success": boolean, "outcome": string}' };
      }
      const reason = typeof a.reason === 'string' && a.reason !== '' ? a.reason.slice(0, MAX_TEXT) : undefined;
      return { success: a.success, outcome: a.outcome.slice(0, MAX_TEXT), ...(reason ? { reason } : {}) };
    },
  };
}
