/** Queue statements written once for both databases; the dialect classes extend this. */
import { sql } from 'kysely';
import {
  type AttemptOpening,
  type AttemptResult,
  type ClaimedLead,
  type Closing,
  DO_NOT_CALL,
  type OpenResult,
  type PendingAttempt,
  type QueueStore,
} from '../queue.js';
import { capReached, parseCallCaps } from '../../compliance/call-caps.js';
import { toStorable } from '../../storable.js';
import { KyselyAttemptStore } from '../attempts.js';
import type { NewEvents } from '../events.js';
import { digester, removeOrphanNumbers } from '../digests.js';
import { KyselyDncStore } from '../dnc.js';
import { SharedClaimStore, groupBy, iso, statusItem } from './claims.js';
import { orphanStale } from './in-flight.js';
import { companiesLockingNumbers, numberKey } from './number-locks.js';
import { pendingAttempts } from './pending.js';

export { CLAIMED_STATUS, type ClaimRow, dueTime, iso, notListed, unheld } from './claims.js';

/** an attempt.started event's item */
export const startedItem = (o: AttemptOpening) => ({
  leadId: o.lead.id,
  externalId: o.lead.externalId,
  attemptId: o.attemptId,
  attempt: o.lead.attempts + 1,
});

/** The queue: claims (claims.ts), and the attempts written under them. */
export abstract class SharedQueueStore extends SharedClaimStore implements QueueStore {
  /** for each opening whose claim still holds, the attempt row, open; the attempt ids written */
  protected abstract openRows(batch: readonly AttemptOpening[], now: number): Promise<Set<string>>;
  /**
   * Closes the attempts still open among `batch`, and makes the moves of the ones it closed
   * whose fence still holds: the attempt ids closed, and the seqs moved
   */
  protected abstract closeAndMove(batch: readonly Closing[], closedBy: string): Promise<{ closed: Set<string>; moved: Set<number> }>;

  /**
   * The claims are checked by updates of the leads' own rows, which on
   * PostgreSQL also lock them: a delete of a lead waits for this transaction,
   * and one that came first leaves nothing to update.
   */
  open(batch: readonly AttemptOpening[], now: number): Promise<OpenResult[]> {
    if (batch.length === 0) return Promise.resolve([]);
    return this.inWriteTx(async (self) => {
      // A number listed since the claim (or a prefetch lead's number, known only now) is not called.
      const key = (o: AttemptOpening) => `${o.lead.campaignId} ${o.phoneNumber}`;
      const listed = await new KyselyDncStore(self.ex, self.events).listedFor(
        batch.flatMap((o) => (o.phoneNumber === null ? [] : [{ campaignId: o.lead.campaignId, phoneNumber: o.phoneNumber }])),
      );
      const held = await self.numberHeld(
        batch.filter((o) => !listed.has(key(o))),
        now,
      );
      const opened = await self.openRows(
        batch.filter((o) => !listed.has(key(o)) && !held.has(o.attemptId)),
        now,
      );
      const missing = batch.filter((o) => !opened.has(o.attemptId)).map((o) => o.lead.seq);
      const present = new Set<number>();
      if (missing.length > 0)
        for (const r of await self.ex.selectFrom('leads').select('seq').where('seq', 'in', missing).execute()) present.add(Number(r.seq));
      if (!self.statementsWriteEvents)
        await self.events.append(
          ...[
            ...groupBy(
              batch.filter((o) => opened.has(o.attemptId)),
              (o) => o.lead.campaignId,
            ),
          ].map(([campaignId, group]): NewEvents => ({ type: 'attempt.started', campaignId, items: group.map(startedItem), now })),
        );
      return batch.map((o): OpenResult => {
        if (opened.has(o.attemptId)) return 'opened';
        if (listed.has(key(o))) return 'do-not-call';
        const why = held.get(o.attemptId);
        if (why) return why;
        return present.has(o.lead.seq) ? 'claim lost' : 'gone';
      });
    });
  }

  /**
   * The openings whose number may not be called now, and why: a call to it
   * is in progress in the company (in any campaign, or earlier in this
   * batch), or it is at one of the company's per-number call caps. On
   * PostgreSQL a transaction lock per number makes two dialers opening calls
   * to the same number take turns, so the second sees the first's attempt.
   */
  private async numberHeld(batch: readonly AttemptOpening[], now: number): Promise<Map<string, 'number busy' | 'call cap'>> {
    const held = new Map<string, 'number busy' | 'call cap'>();
    const numbered = batch.filter((o) => o.phoneNumber !== null);
    if (numbered.length === 0) return held;
    const companies = await companiesLockingNumbers(
      this.db,
      this.ex,
      numbered.map((o) => ({ campaignId: o.lead.campaignId, phoneNumber: o.phoneNumber! })),
    );
    const companyOf = new Map(companies.map((r) => [r.id, r]));
    const key = (o: AttemptOpening) => numberKey(companyOf.get(o.lead.campaignId)?.company_id ?? '', o.phoneNumber!);
    const inCall = new Set<string>();
    for (const [companyId, group] of groupBy(numbered, (o) => companyOf.get(o.lead.campaignId)?.company_id ?? '')) {
      if (companyId === '') continue;
      const rows = await this.ex
        .selectFrom('attempts')
        .select('phone_number')
        .distinct()
        .where('company_id', '=', companyId)
        .where('phone_number', 'in', [...new Set(group.map((o) => o.phoneNumber!))])
        .where('state', '<>', 'closed')
        .execute();
      for (const r of rows) inCall.add(numberKey(companyId, r.phone_number!));
    }
    const seen = new Set<string>();
    const capped: AttemptOpening[] = [];
    for (const o of numbered) {
      const company = companyOf.get(o.lead.campaignId);
      if (!company) continue;
      const k = key(o);
      const busy = seen.has(k) || inCall.has(k);
      seen.add(k);
      if (busy) held.set(o.attemptId, 'number busy');
      else if (company.call_caps !== '') capped.push(o);
    }
    // the calls placed to each number within the company's longest cap: two statements a company
    const attempts = new KyselyAttemptStore(this.ex, digester(this.db, this.ex));
    for (const [, group] of groupBy(capped, (o) => companyOf.get(o.lead.campaignId)!.company_id)) {
      const company = companyOf.get(group[0]!.lead.campaignId)!;
      const caps = parseCallCaps(company.call_caps);
      if (caps.length === 0) continue;
      const since = now - Math.max(...caps.map((c) => c.windowMs));
      const placed = await attempts.placedToMany(company.company_id, [...new Set(group.map((o) => o.phoneNumber!))], since);
      for (const o of group) if (capReached(caps, placed.get(o.phoneNumber!) ?? [], now)) held.set(o.attemptId, 'call cap');
    }
    return held;
  }

  postpone(attemptId: string, until: number): Promise<boolean> {
    return this.inWriteTx(async (self) => {
      const row = await self.ex
        .updateTable('attempts')
        .set({ deadline_at: until })
        .where('attempt_id', '=', attemptId)
        .where('state', '<>', 'closed')
        .returning(['lead_id', 'worker', 'claimed_at'])
        .executeTakeFirst();
      // its lead's lease too, as accept() holds it: the call may still be live
      if (row) await self.holdLead(row, until);
      return row !== undefined;
    });
  }

  /** the lead of an attempt under way stays held (a concurrency slot) until `until`, if its claim is still the attempt's */
  private async holdLead(row: { lead_id: string; worker: string; claimed_at: number | null }, until: number): Promise<void> {
    await this.ex
      .updateTable('leads')
      .set({ next_attempt_at: iso(until) })
      .where('id', '=', row.lead_id)
      .where('claimed_by', '=', row.worker)
      .where('claimed_at', '=', row.claimed_at)
      .execute();
  }

  accept(attemptId: string, o: { providerCallId: string | null; control?: string | null; deadlineAt: number }): Promise<boolean> {
    return this.inWriteTx(async (self) => {
      const row = await self.ex
        .updateTable('attempts')
        .set({ state: 'accepted', provider_call_id: o.providerCallId, provider_control: o.control ?? null, deadline_at: o.deadlineAt })
        .where('attempt_id', '=', attemptId)
        .where('state', '=', 'open')
        .returning(['lead_id', 'worker', 'claimed_at'])
        .executeTakeFirst();
      if (!row) return false;
      // the lead stays held until the outcome arrives or the deadline passes
      await self.holdLead(row, o.deadlineAt);
      return true;
    });
  }

  async lapse(lead: ClaimedLead, now: number): Promise<void> {
    // the lead keeps its status and attempts; it just stops holding a slot, and stale() sees it
    await sql`update leads set next_attempt_at = ${iso(now)}
      where seq = ${lead.seq} and claimed_by = ${lead.claimedBy} and claimed_at = ${lead.claimedAt}`.execute(this.ex);
  }

  close(given: readonly Closing[], closedBy: 'dialer' | 'report' | 'timeout' | 'recovery', now: number): Promise<AttemptResult[]> {
    if (given.length === 0) return Promise.resolve([]);
    // A platform's words reach here unchecked (a webhook receiver's reason, one cut inside an
    // emoji): made storable, so PostgreSQL records the close as SQLite does instead of refusing it.
    const batch = given.map((c) => ({ ...c, outcome: toStorable(c.outcome), reason: c.reason === null ? null : toStorable(c.reason) }));
    return this.inWriteTx(async (self) => {
      const { closed, moved } = await self.closeAndMove(batch, closedBy);
      await self.listAsked(
        batch.filter((c) => c.outcome === DO_NOT_CALL && closed.has(c.attemptId)),
        now,
      );
      const lost = batch.filter((c) => c.move !== null && closed.has(c.attemptId) && !moved.has(c.move.seq)).map((c) => c.move!.seq);
      const present = new Set<number>();
      if (lost.length > 0)
        for (const r of await self.ex.selectFrom('leads').select('seq').where('seq', 'in', lost).execute()) present.add(Number(r.seq));
      // a call that outlived its lead: its number goes now that the call is over (removeLeadNumbers)
      const gone = batch.filter(
        (c) => closed.has(c.attemptId) && (c.move === null || (!moved.has(c.move.seq) && !present.has(c.move.seq))),
      );
      if (gone.length > 0)
        await removeOrphanNumbers(
          self.ex,
          digester(self.db, self.ex),
          gone.map((c) => c.attemptId),
        );
      // each campaign's two events, in this order, written by one statement
      const events = [
        ...groupBy(
          batch.filter((c) => closed.has(c.attemptId)),
          (c) => c.campaignId,
        ),
      ].flatMap(([campaignId, closings]): NewEvents[] => {
        const finished = closings.map((c) => ({
          leadId: c.leadId,
          externalId: c.externalId,
          attemptId: c.attemptId,
          attempt: c.attempt,
          outcome: c.outcome,
          success: c.success,
          reason: c.reason,
          durationSeconds: c.durationSeconds,
        }));
        const changed = closings.filter((c) => c.move && moved.has(c.move.seq) && c.move.from !== c.move.to);
        const items = changed.map((c) => statusItem(c.leadId, c.externalId, c.move!.from, c.move!.to));
        return [
          { type: 'attempt.finished', campaignId, items: finished, now },
          { type: 'lead.status_changed', campaignId, items, now },
        ];
      });
      await self.events.append(...events);
      return batch.map((c): AttemptResult => {
        if (!closed.has(c.attemptId)) return { result: 'already closed' };
        if (c.move === null) return { result: 'gone' };
        if (moved.has(c.move.seq)) return { result: 'recorded', status: c.move.to, attempt: c.attempt };
        return present.has(c.move.seq) ? { result: 'claim lost' } : { result: 'gone' };
      });
    });
  }

  /** the person asked not to be called: their number goes on the company's do-not-call list (source `call`) with the attempt's close */
  private async listAsked(asked: readonly Closing[], now: number): Promise<void> {
    if (asked.length === 0) return;
    const rows = await this.ex
      .selectFrom('attempts')
      .select(['attempt_id', 'company_id', 'phone_number'])
      .where(
        'attempt_id',
        'in',
        asked.map((c) => c.attemptId),
      )
      .where('phone_number', 'is not', null)
      .execute();
    const reasons = new Map(asked.map((c) => [c.attemptId, c.reason]));
    const dnc = new KyselyDncStore(this.ex, this.events);
    for (const r of rows)
      await dnc.add(r.company_id, [r.phone_number!], { source: 'call', reason: reasons.get(r.attempt_id) ?? null, now });
  }

  async pending(attemptId: string): Promise<PendingAttempt | undefined> {
    return (await pendingAttempts(this.ex, sql`a.attempt_id = ${attemptId}`, 1))[0];
  }

  /**
   * Past its deadline, or its worker no longer holds a live lease on the
   * lead (a crash, a stall, a lost claim): the attempts not closed are few, so
   * this reads a small partial index whatever the size of the call log. An
   * attempt whose lead was deleted has no lease to judge: its deadline and its
   * dialer's heartbeat say whether it is followed (in-flight.ts). Taken as
   * stale for the missing row, a live call was closed as unknown within
   * seconds, freeing its slot and its number while it rang.
   */
  stale(now: number, limit: number): Promise<PendingAttempt[]> {
    return pendingAttempts(
      this.ex,
      sql`(a.deadline_at <= ${now} or (l.id is null and ${orphanStale(now)})
        or (l.id is not null and (l.claimed_by is null or l.claimed_by <> a.worker
          or l.claimed_at <> a.claimed_at or l.next_attempt_at < ${iso(now)})))`,
      limit,
    );
  }
}
