/**
 * Webhooks in from the AI voice platforms (POST /api/v1/providers/{platform}/events). Each is
 * matched to its attempt by the platform's call id, falling back to the attemptId the platform
 * echoes; verified with the platform's own scheme against the raw body, with the secrets of that
 * attempt's campaign, before anything is written; and applied once: the first terminal event
 * closes the attempt exactly as an outcome report does, and every later, older or non-terminal
 * event changes nothing (it is logged as progress).
 */
import type { Secrets } from '../crypto/secrets.js';
import { AppError, MESSAGES } from '../errors.js';
import type { LeadStatus } from '../leads/lifecycle.js';
import type { Store } from '../store/index.js';
import { closingForPending, countsWhenReported } from './attempts.js';
import { lateOutcomes } from './not-placed.js';
import { listOptOut } from './outcomes.js';
import { platformContext } from './providers/platform.js';
import { type HttpRequester, type InboundEvent, type InboundRequest, isPlatformName, platformFor } from './providers/platforms/index.js';
import type { Platform, PlatformContext } from './providers/platforms/types.js';

export interface InboundDeps {
  store: Store;
  secrets: Secrets;
  /** PUBLIC_URL: the signed URL is the one the platform was given (Twilio signs it) */
  publicUrl: string | undefined;
  request: HttpRequester;
  now: () => number;
}

export interface WebhookReceived {
  attemptId: string;
  /** whether this webhook closed the attempt (false: progress, a repeat, or closed already) */
  recorded: boolean;
  outcome: string | null;
  leadStatus: LeadStatus | null;
  /** what the non-terminal events said, for the log */
  progress: string[];
  /** the call's analysis found an opt-out (Retell's call_analyzed may say so after call_ended) */
  doNotCall: boolean;
}

const notFound = () => new AppError('not_found', 'Attempt not found');

export async function receiveWebhook(
  deps: InboundDeps,
  name: string,
  raw: { body: string; headers: Record<string, string | undefined>; path: string },
): Promise<WebhookReceived> {
  if (!isPlatformName(name)) throw new AppError('not_found', MESSAGES.notFound);
  // Without PUBLIC_URL no call was given a callback URL, and a signed URL cannot be rebuilt.
  if (!deps.publicUrl) throw new AppError('invalid_signature', MESSAGES.invalidSignature);
  const platform = platformFor(name);
  const inbound: InboundRequest = { rawBody: raw.body, headers: raw.headers, url: `${deps.publicUrl}${raw.path}` };
  // parse() only reads; nothing is written before verify() accepts the request
  const events = platform.parse(inbound);
  const attempt = await matchAttempt(deps.store, name, events);
  if (!attempt) throw notFound();
  const campaign = await deps.store.campaigns.byId(attempt.campaignId);
  if (!campaign || campaign.provider !== name) throw notFound();
  const { ctx } = platformContext(campaign, deps.secrets, deps.request);
  if (!platform.verify(inbound, { ...ctx, callbackUrl: '' })) throw new AppError('invalid_signature', MESSAGES.invalidSignature);

  const progress = events.filter((e) => !e.terminal).map((e) => e.progress ?? 'progress');
  const doNotCall = events.some((e) => e.doNotCall === true);
  const first = events.find((e) => e.terminal && e.outcome !== undefined);
  const base = { attemptId: attempt.attemptId, progress, doNotCall };
  const pending = first ? await deps.store.queue.pending(attempt.attemptId) : undefined;
  // non-terminal, or closed already (a repeat, or the call timeout came first): the first outcome stands
  if (!first || !pending) {
    // an opt-out the analysis found after the outcome was decided (Retell's call_analyzed) still lists the number
    if (doNotCall) await listAnalysedOptOut(deps, attempt.attemptId, events);
    return { ...base, recorded: false, outcome: null, leadStatus: null };
  }
  const terminal = first.confirm ? await confirmed(platform, { ...ctx, callbackUrl: '' }, attempt.attemptId, first) : first;
  const now = deps.now();
  const closing = closingForPending(pending, {
    success: terminal.success ?? false,
    outcome: terminal.outcome!,
    reason: terminal.reason ?? null,
    durationSeconds: terminal.durationSeconds ?? null,
    ...countsWhenReported(terminal.outcome!),
    finishedAt: now,
  });
  const [result] = await deps.store.queue.close([closing], 'report', now);
  const recorded = result!.result !== 'already closed';
  // closed between the read and the close (the call timeout or recovery, as unknown): the first
  // outcome stands, but the opt-out is not lost with this one, as in the branch above
  if (!recorded && doNotCall) await listAnalysedOptOut(deps, attempt.attemptId, events);
  if (recorded) await lateOutcomes(deps.store, [{ campaignId: attempt.campaignId, outcome: terminal.outcome! }], now);
  return {
    ...base,
    recorded,
    outcome: recorded ? terminal.outcome! : null,
    leadStatus: result!.result === 'recorded' ? result!.status : null,
  };
}

/** how long the call resource is asked for, at most, before a webhook's own outcome stands */
const CONFIRM_MS = 5_000;

/**
 * A terminal event the platform's call resource may tell more about (InboundEvent.confirm), asked
 * once and briefly: on any failure, or a call the platform does not see as ended, the event's own
 * outcome stands. Not left to reconciliation: it asks only past the call timeout, long after this
 * webhook has closed the attempt.
 */
async function confirmed(platform: Platform, ctx: PlatformContext, attemptId: string, e: InboundEvent): Promise<InboundEvent> {
  try {
    const r = await platform.lookup({ attemptId, providerCallId: e.providerCallId }, ctx, AbortSignal.timeout(CONFIRM_MS));
    if (r.state !== 'ended') return e;
    return {
      ...e,
      outcome: r.outcome,
      success: r.success,
      reason: r.reason ?? e.reason,
      durationSeconds: r.durationSeconds ?? e.durationSeconds,
    };
  } catch {
    return e;
  }
}

/** an opt-out the call's analysis found once the attempt was closed: listed as a late outcome report's is */
async function listAnalysedOptOut(deps: InboundDeps, attemptId: string, events: readonly InboundEvent[]): Promise<void> {
  const a = await deps.store.attempts.byAttemptId(attemptId);
  if (!a) return;
  await listOptOut(
    deps.store,
    { attemptId, ...a },
    { named: events.map((e) => e.phoneNumber), reason: 'opted out (the call analysis, after the outcome)', now: deps.now() },
  );
}

/** by the platform's call id first (stored when the create answered), then by the echoed attemptId */
async function matchAttempt(store: Store, provider: string, events: InboundEvent[]) {
  for (const e of events) {
    if (!e.providerCallId) continue;
    const found = await store.attempts.byProviderCallId(provider, e.providerCallId);
    if (found) return found;
  }
  for (const e of events) {
    if (!e.attemptId) continue;
    const found = await store.attempts.byAttemptId(e.attemptId);
    if (found) return { attemptId: e.attemptId, campaignId: found.campaignId };
  }
  return undefined;
}
