/**
 * Prefetch mode: right before each call, ask the campaign's predial function
 * (an endpoint of the client's CRM) for the lead's phone number.
 *
 *   POST <predial-url>   {"leadId","campaignId","externalId"}
 *   X-Leadline-Signature: sha256=<hex HMAC-SHA256 of the raw body>
 *   answer: {"phoneNumber": "+…"}   (E.164)
 *
 * A failed, slow or empty answer, or a number that is not E.164, is a
 * failed attempt whose reason says which.
 */
import { phoneNumber } from '../leads/schemas.js';
import { signedPost } from './signed-post.js';

/** the same rule the API applies to phoneNumber */
const E164 = new RegExp(phoneNumber.pattern);

export interface PredialRequest {
  url: string;
  secret: string | null;
  leadId: string;
  campaignId: string;
  externalId: string | null;
  timeoutMs: number;
  signal?: AbortSignal;
}

export type PredialResult = { ok: true; phoneNumber: string } | { ok: false; reason: string };

export async function predial(r: PredialRequest): Promise<PredialResult> {
  const answer = await signedPost({
    url: r.url,
    body: { leadId: r.leadId, campaignId: r.campaignId, externalId: r.externalId },
    secret: r.secret,
    timeoutMs: r.timeoutMs,
    signal: r.signal,
  });
  if (!answer.ok) return { ok: false, reason: `predial: ${answer.reason}` };
  const phone = (answer.json as { phoneNumber?: unknown } | null)?.phoneNumber;
  if (phone === undefined || phone === null || phone === '') return { ok: false, reason: 'predial: no phoneNumber in the answer' };
  // The reason names the rule, never the value: reasons travel into the
  // attempts table, events and dashboards, where a CRM's text (a number in a
  // local format is still a person's number) does not belong.
  if (typeof phone !== 'string') return { ok: false, reason: `predial: phoneNumber is a ${typeof phone}, not an E.164 string` };
  if (!E164.test(phone)) return { ok: false, reason: 'predial: phoneNumber is not E.164 (a + and 2 to 15 digits, the first not 0)' };
  return { ok: true, phoneNumber: phone };
}
