/**
 * The call-provider contract the dialer uses for the AI voice platforms (issue 22), as the lead
 * designed it in helpers/provider-interface.md. Five additions, each marked "added", came from
 * the platforms' references:
 *   - InboundEvent.doNotCall: Retell sends the call's analysis in `call_analyzed`, after the
 *     terminal `call_ended`, so an opt-out can arrive on an event that must not decide the outcome;
 *   - InboundEvent.phoneNumber: by then the attempt may hold only its number's digest (its lead was
 *     deleted during the call), and the number called is in Retell's call object (`to_number`);
 *   - Platform.defaultBaseUrl: --provider-base-url defaults to the platform's public API;
 *   - Platform.requiresWebhookSecret: Bland signs its webhooks with a secret of its own (not the
 *     API key), so a Bland campaign without --provider-webhook-secret could verify nothing;
 *   - InboundEvent.confirm: Twilio documents the answering machine verdict on the call resource.
 */

import type { CallRef, CallRequest, LookupResult, PlaceResult } from '../types.js';

export type { CallRef, CallRequest, LookupResult, PlaceResult } from '../types.js';

/** The one outcome set of the platform adapters. */
const OUTCOMES = ['answered', 'voicemail', 'no-answer', 'busy', 'failed', 'canceled', 'not-placed', 'do-not-call'] as const;
// plus 'unknown' when leadline closes an attempt it could not learn the end of.
export type Outcome = (typeof OUTCOMES)[number];

/**
 * success === (outcome === 'answered'), except that 'do-not-call' is a completed call that
 * concludes the lead (and adds the number to the do-not-call list).
 */
export function concludes(outcome: Outcome): boolean {
  return outcome === 'answered' || outcome === 'do-not-call';
}

/** One event a platform posted to leadline (a webhook in), already verified. */
export interface InboundEvent {
  /** the platform's call id, matched first */
  providerCallId: string | null;
  /** echoed back by the platform (variables / metadata / URL), the fallback */
  attemptId: string | null;
  /** true only for the platform's documented end-of-call event */
  terminal: boolean;
  outcome?: string;
  success?: boolean;
  reason?: string;
  durationSeconds?: number;
  /** for non-terminal events: what happened (e.g. 'ringing', 'in-progress') */
  progress?: string;
  /** added: the call's analysis found an opt-out; true on terminal and non-terminal events alike */
  doNotCall?: boolean;
  /** added: with doNotCall, the number called, as the platform's call object names it (Retell's to_number) */
  phoneNumber?: string;
  /**
   * added: a terminal event whose outcome the platform's call resource may refine (Twilio: the
   * verdict of asynchronous answering machine detection is documented on the call resource once
   * the call is complete, and a status callback without AnsweredBy would record a voicemail as answered)
   */
  confirm?: boolean;
}

export interface InboundRequest {
  /** exactly as received */
  rawBody: string;
  /** lower-case names */
  headers: Record<string, string | undefined>;
  /** the full public URL the platform posted to (PUBLIC_URL + path + query) */
  url: string;
}

export interface Platform {
  readonly name: 'vapi' | 'retell' | 'bland' | 'twilio';
  /** added: the platform's public API, the default of --provider-base-url */
  readonly defaultBaseUrl: string;
  /** added: the platform signs webhooks with a secret other than the API key, which leadline must be given */
  readonly requiresWebhookSecret: boolean;
  /** checks campaign options at create/update time; throws with a clear message naming the key */
  parseOptions(options: Record<string, string>): Record<string, string>;
  /** Sends ONE create-call request (no retry, ever) and interprets the answer. */
  place(call: CallRequest, ctx: PlatformContext, signal: AbortSignal): Promise<PlaceResult>;
  /** the platform's get-call endpoint, for reconciliation after --call-timeout; throws when the platform cannot be asked */
  lookup(ref: CallRef, ctx: PlatformContext, signal: AbortSignal): Promise<LookupResult>;
  /** hang up a live call (lost claim, shutdown past grace); a call already over is not an error; throws when the platform refuses */
  hangUp(ref: CallRef, ctx: PlatformContext, signal: AbortSignal): Promise<void>;
  /** the platform's documented webhook signature scheme, against the raw body; false = 401 */
  verify(req: InboundRequest, ctx: PlatformContext): boolean;
  /** the events in one verified webhook body (usually one) */
  parse(req: InboundRequest): InboundEvent[];
}

export interface PlatformContext {
  /** --provider-secret: the API key (Twilio: the auth token) */
  secret: string;
  /** --provider-webhook-secret, where the platform signs with another secret */
  webhookSecret: string | null;
  /** --provider-option KEY=VALUE, already checked by parseOptions */
  options: Record<string, string>;
  /** --provider-base-url, default the platform's public API */
  baseUrl: string;
  /** per call: `${PUBLIC_URL}/api/v1/providers/<name>/events?attemptId=<id>` */
  callbackUrl: string;
  /** for one request */
  timeoutMs: number;
  /** the ONE way out to the network (see below) */
  request: HttpRequester;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export type HttpAnswer =
  | { ok: true; status: number; headers: Record<string, string | undefined>; text: string }
  /** `sent` says whether any byte of the request may have reached the server (false: connection refused, DNS failure, refused by policy) */
  | { ok: false; reason: string; sent: boolean };

/** every outbound request goes through this, so the outbound policy (SSRF guard) applies in one place */
export type HttpRequester = (r: HttpRequest) => Promise<HttpAnswer>;
