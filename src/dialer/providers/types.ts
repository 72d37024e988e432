/**
 * What every call provider implements: place one call, exactly once, and say
 * how that went; the platforms that report a call's end later can also look
 * a call up and hang it up. The attempt (and its `attemptId`) is written
 * before `place` is called, so a provider is never asked twice for one attempt.
 */

/** What leadline tells a provider about one call. */
export interface CallRequest {
  /** unique per attempt; never dialled twice */
  attemptId: string;
  leadId: string;
  campaignId: string;
  /** E.164 */
  phoneNumber: string;
  externalId: string | null;
  /** the lead's metadata object */
  metadata: Record<string, unknown>;
  /** 1 for the lead's first attempt */
  attempt: number;
}

export type PlaceResult =
  /** the call is over already (simulate; a webhook receiver answering 200 with the result) */
  | { kind: 'finished'; success: boolean; outcome: string; reason?: string; durationSeconds?: number; providerCallId?: string }
  /** the provider took the call; its end arrives later (an outcome report, a webhook), or by reconciliation */
  | { kind: 'accepted'; providerCallId: string | null; control?: string }
  /**
   * clearly refused BEFORE placing (a connection refused, a 429, a concurrency
   * limit, a 5xx before acceptance): spends no attempt; the dialer retries
   * with backoff
   */
  | { kind: 'not-placed'; reason: string; retryAfterMs?: number }
  /**
   * ambiguous: the request may have reached the provider (a timeout after
   * sending, a reset mid-answer, an unreadable 2xx). The attempt stays open
   * until an outcome arrives or its call timeout passes; it is never re-sent.
   */
  | { kind: 'unknown'; reason: string };

export interface CallRef {
  attemptId: string;
  providerCallId: string | null;
  control?: string | null;
}

export type LookupResult =
  | { state: 'ended'; outcome: string; success: boolean; reason?: string; durationSeconds?: number }
  | { state: 'in-progress' }
  | { state: 'not-found' };

export interface CallProvider {
  /** sends one call; resolves for every failure too; `signal` aborts it (a shutdown past its grace, a lost claim) */
  place(call: CallRequest, signal: AbortSignal): Promise<PlaceResult>;
  /** the provider's view of a call left open, after the call timeout; absent: it closes as unknown */
  lookup?(ref: CallRef, signal: AbortSignal): Promise<LookupResult>;
  /** hangs up a live call the dialer must abort; absent: aborting `place` is all there is */
  hangUp?(ref: CallRef, signal: AbortSignal): Promise<void>;
}
