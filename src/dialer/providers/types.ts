/** What every call provider implements: place one call, report how it went. */

export interface CallRequest {
  leadId: string;
  campaignId: string;
  phoneNumber: string;
  externalId: string | null;
  metadata: unknown;
  /** 1 for the lead's first attempt */
  attempt: number;
}

export interface CallResult {
  /** true concludes the lead; false is a failed attempt */
  success: boolean;
  /** a short code: answered, no-answer, busy, voicemail, provider-error, … */
  outcome: string;
  reason?: string;
}

/** the outcome of a call cut short by the dialer's shutdown; the lead is released, not charged */
export const ABORTED = 'aborted';

export interface CallProvider {
  /** resolves with a result for every failure too; `signal` aborts on shutdown */
  call(request: CallRequest, signal: AbortSignal): Promise<CallResult>;
}
