/**
 * Attempts nobody follows any more are closed as `unknown`, and lapsed leases
 * with no attempt are ended. An attempt's: one whose worker
 * died or stalled (its lease on the lead lapsed) and one whose outcome did not
 * arrive by its call timeout. An unknown attempt counts, as a failed one does,
 * and the lead's next attempt, after the retry delay, gets a new attemptId:
 * the call that may have happened is never dialled again under its id.
 * Every dialer runs this; closing is conditional (only an attempt not closed
 * yet), so two dialers sweeping at once close each attempt once.
 */
import { lateOutcomes } from './not-placed.js';
import type { Logger } from 'pino';
import type { Store } from '../store/index.js';
import { closingForPending } from './attempts.js';
import { ASK_AGAIN_MS, type Reconcile } from './reconcile.js';

const BATCH = 200;

/**
 * The attempts closed plus the leases ended, and the campaigns whose leads
 * they freed. A dialer wakes its schedule for those campaigns (worker.ts,
 * recover): a lead closed as unknown with a 0 s retry delay, or released, is
 * due at once, and nothing else tells the dialer that ran the recovery, since
 * on SQLite `watch` never signals a connection's own commits. It waited for
 * the idle poll (60 s by default).
 */
export async function recoverStale(
  store: Store,
  now: number,
  log: Logger,
  reconcile?: Reconcile,
): Promise<{ count: number; campaignIds: Set<string> }> {
  const campaignIds = new Set<string>();
  const closed = await closeStale(store, now, log, campaignIds, reconcile);
  // then the leases that lapsed before any attempt was written
  const released = await store.queue.releaseExpired(now, undefined, campaignIds);
  if (released > 0) log.warn({ released }, 'leads whose dialer stopped renewing its claim are due again');
  return { count: closed + released, campaignIds };
}

async function closeStale(store: Store, now: number, log: Logger, touched: Set<string>, reconcile?: Reconcile): Promise<number> {
  let closed = 0;
  for (;;) {
    const found = await store.queue.stale(now, BATCH);
    if (found.length === 0) return closed;
    // past its timeout, a platform's call is looked up there first (src/dialer/reconcile.ts)
    const learnt = await Promise.all(
      found.map((p) => (p.deadlineAt !== null && p.deadlineAt <= now && reconcile ? reconcile(p, now) : null)),
    );
    // a platform that could not be asked: the attempt is asked about again later, not closed
    for (const [i, p] of found.entries()) if (learnt[i] === 'later') await store.queue.postpone(p.attemptId, now + ASK_AGAIN_MS);
    const stale = found.filter((_, i) => learnt[i] !== 'later');
    const closings = stale.map((p) => {
      const ending = learnt[found.indexOf(p)];
      if (ending && ending !== 'later') return closingForPending(p, { ...ending, finishedAt: now });
      const reason =
        p.deadlineAt !== null && p.deadlineAt <= now
          ? 'no outcome arrived within the call timeout'
          : 'the dialer placing the call stopped renewing its claim (it crashed or stalled)';
      return closingForPending(p, { success: false, outcome: 'unknown', reason, durationSeconds: null, counts: true, finishedAt: now });
    });
    const byTimeout = closings.filter((_, i) => stale[i]!.deadlineAt !== null && stale[i]!.deadlineAt! <= now);
    const byRecovery = closings.filter((c) => !byTimeout.includes(c));
    const timedOut = await store.queue.close(byTimeout, 'timeout', now);
    // what reconciliation learnt from the platforms counts as a reported outcome (not-placed.ts)
    await lateOutcomes(
      store,
      byTimeout.filter((_, i) => timedOut[i]!.result !== 'already closed'),
      now,
      (err, campaignId) => log.error({ err, campaignId }, 'dialer: counting outcomes reported late failed'),
    );
    await store.queue.close(byRecovery, 'recovery', now);
    closed += stale.length;
    for (const p of stale) touched.add(p.campaignId);
    for (const [i, p] of stale.entries()) {
      log.warn(
        { campaignId: p.campaignId, leadId: p.leadId, attemptId: p.attemptId, outcome: closings[i]!.outcome },
        'attempt closed past its timeout',
      );
    }
    if (found.length < BATCH) return closed;
  }
}

/**
 * Extends the leases of this worker's calls in flight. A call whose claim is
 * gone (taken over while the worker stalled: recovery closed its attempt) is
 * hung up: its signal aborts, and its attempt is recorded with what is known.
 */
export async function renewCalls(
  store: Store,
  log: Logger,
  workerId: string,
  inFlight: ReadonlyMap<number, { lead: { id: string; campaignId: string }; abort: AbortController }>,
  until: number,
): Promise<void> {
  const seqs = [...inFlight.keys()];
  if (seqs.length === 0) return;
  const held = await store.queue.renew(workerId, seqs, until);
  for (const seq of seqs) {
    const f = inFlight.get(seq);
    if (f && !held.has(seq) && !f.abort.signal.aborted) {
      log.warn({ campaignId: f.lead.campaignId, leadId: f.lead.id }, 'dialer: lost the claim of a call in flight; hanging up');
      f.abort.abort('claim lost');
    }
  }
}
