/**
 * The claim / record / release / recycle statements on a real database, with
 * an injected clock: claim order, exclusivity, the claim timeout, the retry
 * delay, exhaustion, recycling, and a lead deleted mid-call.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { LifecycleError } from '../../src/leads/lifecycle.js';
import { type AttemptRecord, planAttempt, recordAttempt } from '../../src/dialer/attempts.js';
import { AttemptRecorder } from '../../src/dialer/recorder.js';
import { claimDue } from '../../src/dialer/claim.js';
import type { ClaimedLead } from '../../src/store/queue.js';
import { availableStores, useStore } from '../helpers/db.js';
import { attemptRows, leadRow, makeCampaign, seedLeads } from './support.js';

const T0 = Date.parse('2026-03-10T14:00:00.000Z');
const MIN = 60_000;
const LEASE = 5 * MIN;

describe.each(await availableStores())('dialer repository on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  const claim = (campaignId: string, o: { now?: number; limit?: number; worker?: string; maxAttempts?: number; dueBy?: number } = {}) =>
    claimDue(db, {
      campaignId,
      maxAttempts: o.maxAttempts ?? 3,
      workerId: o.worker ?? 'w1',
      limit: o.limit ?? 100,
      now: o.now ?? T0,
      dueBy: o.dueBy,
      leaseMs: LEASE,
    });
  const attempt = (over: Partial<AttemptRecord> = {}): AttemptRecord => ({
    success: false,
    outcome: 'no-answer',
    phoneNumber: '+14155550000',
    reason: null,
    startedAt: T0,
    finishedAt: T0 + 1000,
    retryDelayMs: 30 * MIN,
    ...over,
  });

  it('takes due leads by priority (high first), then scheduledFor (none first), then creation', async () => {
    const c = await makeCampaign(db);
    const at = (m: number) => new Date(T0 + m * MIN).toISOString();
    const ids = await seedLeads(db, c, [
      { priority: 0 }, // 0
      { priority: 50, scheduledFor: at(-10) }, // 1
      { priority: 50 }, // 2
      { priority: 50, scheduledFor: at(-20) }, // 3
      { priority: 100, scheduledFor: at(10) }, // 4: not due yet
      { priority: 0, scheduledFor: at(-30) }, // 5
      { priority: 50 }, // 6: created after 2
      { priority: 7 }, // 7
    ]);
    const got = await claim(c, { limit: 3 });
    expect(got.map((l) => ids.indexOf(l.id))).toEqual([2, 6, 3]);
    const rest = await claim(c);
    expect(rest.map((l) => ids.indexOf(l.id))).toEqual([1, 7, 0, 5]);
    // The scheduled lead becomes due at its time and jumps the queue by priority.
    await seedLeads(db, c, [{ priority: 1 }]);
    const later = await claim(c, { now: T0 + 10 * MIN, limit: 1 });
    expect(later.map((l) => l.id)).toEqual([ids[4]]);
  });

  it('a claim records who holds the lead and since when, and moves raw to attempting', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const [l] = await claim(c, { worker: 'worker-a' });
    expect(l).toMatchObject({ id, previousStatus: 'raw', attempts: 0, maxAttempts: 3, claimedBy: 'worker-a', claimedAt: T0 });
    expect(await leadRow(db, id!)).toMatchObject({
      status: 'attempting',
      claimed_by: 'worker-a',
      claimed_at: T0,
      next_attempt_at: new Date(T0 + LEASE).toISOString(),
    });
  });

  it('a claimed lead is taken by no one else until the claim times out; then recovery makes it due again', async () => {
    const c = await makeCampaign(db);
    const ids = await seedLeads(db, c, [{}, {}, {}]);
    expect((await claim(c, { worker: 'a', limit: 2 })).map((l) => l.id)).toEqual(ids.slice(0, 2));
    expect((await claim(c, { worker: 'b' })).map((l) => l.id)).toEqual([ids[2]]);
    expect(await claim(c, { worker: 'b', now: T0 + LEASE - 1 })).toEqual([]);
    // Worker a died: a lapsed lease is not claimed as it is...
    expect(await claim(c, { worker: 'c', now: T0 + LEASE + 1 })).toEqual([]);
    // ...recovery ends it first (no attempt was open), and the leads come back, to anyone, as the claims found them.
    expect(await db.queue.releaseExpired(T0 + LEASE + 1, c)).toBe(3);
    const back = await claim(c, { worker: 'c', now: T0 + LEASE + 1 });
    expect(back.map((l) => l.id).sort()).toEqual([...ids].sort());
    expect(back.find((l) => l.id === ids[0])).toMatchObject({ previousStatus: 'raw', attempts: 0, claimedBy: 'c' });
  });

  it('a late report from a worker whose claim timed out and was taken over writes nothing', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const [first] = await claim(c, { worker: 'a' });
    await db.queue.releaseExpired(T0 + LEASE + 1, c);
    const [second] = await claim(c, { worker: 'b', now: T0 + LEASE + 1 });
    expect(await recordAttempt(db, first!, attempt({ success: true }))).toEqual({ result: 'claim lost' });
    expect(await leadRow(db, id!)).toMatchObject({ status: 'attempting', attempts: 0, claimed_by: 'b' });
    expect(await recordAttempt(db, second!, attempt({ success: true, finishedAt: T0 + LEASE + 1 }))).toMatchObject({
      result: 'recorded',
      status: 'concluded',
    });
    expect(await attemptRows(db, id!)).toHaveLength(1);
  });

  it('renewing keeps a long call claimed past the timeout', async () => {
    const c = await makeCampaign(db);
    await seedLeads(db, c, [{}]);
    const [l] = await claim(c, { worker: 'a' });
    expect((await db.queue.renew('a', [l!.seq], T0 + 3 * LEASE)).size).toBe(1);
    expect((await db.queue.renew('someone-else', [l!.seq], T0 + 9 * LEASE)).size).toBe(0);
    expect(await db.queue.releaseExpired(T0 + 2 * LEASE, c)).toBe(0);
    expect(await claim(c, { worker: 'b', now: T0 + 2 * LEASE })).toEqual([]);
    expect(await db.queue.releaseExpired(T0 + 3 * LEASE + 1, c)).toBe(1);
    expect(await claim(c, { worker: 'b', now: T0 + 3 * LEASE + 1 })).toHaveLength(1);
  });

  it('a failed attempt waits the retry delay; the attempt is recorded with what was dialled', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const [l] = await claim(c);
    const r = await recordAttempt(db, l!, attempt({ reason: 'no one picked up' }));
    expect(r).toEqual({ result: 'recorded', status: 'attempting', attempt: 1 });
    const retryAt = T0 + 1000 + 30 * MIN;
    expect(await leadRow(db, id!)).toMatchObject({
      status: 'attempting',
      attempts: 1,
      claimed_by: null,
      claimed_at: null,
      next_attempt_at: new Date(retryAt).toISOString(),
    });
    expect(await attemptRows(db, id!)).toEqual([
      expect.objectContaining({
        lead_id: id,
        campaign_id: c,
        attempt: 1,
        started_at: T0,
        finished_at: T0 + 1000,
        success: 0,
        outcome: 'no-answer',
        phone_number: '+14155550000',
        reason: 'no one picked up',
        worker: 'w1',
      }),
    ]);
    expect(await claim(c, { now: retryAt - 1 })).toEqual([]);
    expect((await claim(c, { now: retryAt })).map((x) => x.id)).toEqual([id]);
  });

  it('the attempt that reaches the maximum exhausts the lead; recycle grants new attempts', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const fail = async (now: number) => {
      const [l] = await claim(c, { now, maxAttempts: 2 });
      expect(l?.id).toBe(id);
      return recordAttempt(db, l!, attempt({ startedAt: now, finishedAt: now, retryDelayMs: 0 }));
    };
    expect(await fail(T0)).toMatchObject({ status: 'attempting', attempt: 1 });
    expect(await fail(T0 + 1)).toMatchObject({ status: 'exhausted', attempt: 2 });
    expect(await leadRow(db, id!)).toMatchObject({ status: 'exhausted', attempts: 2, next_attempt_at: null });
    expect(await claim(c, { now: T0 + MIN, maxAttempts: 2 })).toEqual([]);

    expect(await db.queue.recycle(c, 2, 2)).toBe(1);
    expect(await leadRow(db, id!)).toMatchObject({ status: 'attempting', attempts: 2, extra_attempts: 2 });
    expect(await fail(T0 + 2)).toMatchObject({ status: 'attempting', attempt: 3 });
    expect(await fail(T0 + 3)).toMatchObject({ status: 'exhausted', attempt: 4 });
    expect((await attemptRows(db, id!)).map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('recycle leaves raw, concluded and still-callable leads alone, and rescues leads stranded by a lower maximum', async () => {
    const c = await makeCampaign(db);
    const [won, open, stranded] = await seedLeads(db, c, [{}, {}, {}]);
    /** claims everything due, keeps `id`, gives the others back untouched */
    const take = async (id: string, now: number) => {
      const got = await claim(c, { now, limit: 10 });
      for (const l of got) if (l.id !== id) await db.queue.release(l);
      return got.find((l) => l.id === id)!;
    };
    await recordAttempt(db, await take(won!, T0), attempt({ success: true }));
    await recordAttempt(db, await take(open!, T0 + 1), attempt({ retryDelayMs: 0, finishedAt: T0 + 1 }));
    await recordAttempt(db, await take(stranded!, T0 + 2), attempt({ retryDelayMs: 0, finishedAt: T0 + 2 }));
    await recordAttempt(db, await take(stranded!, T0 + 3), attempt({ retryDelayMs: 0, finishedAt: T0 + 3 }));
    // The operator lowers the campaign's maximum from 3 to 2: "stranded" (2 attempts) has none left.
    const got = await claim(c, { now: T0 + 4, maxAttempts: 2 });
    expect(got.map((l) => l.id)).toEqual([open]);
    for (const l of got) await db.queue.release(l);
    const [raw] = await seedLeads(db, c, [{}]);
    const ids = [won!, open!, stranded!, raw!];
    const before = await Promise.all(ids.map((id) => leadRow(db, id)));
    expect(await db.queue.recycle(c, 2, 3)).toBe(1);
    const after = await Promise.all(ids.map((id) => leadRow(db, id)));
    expect(after[0]).toEqual(before[0]);
    expect(after[1]).toEqual(before[1]);
    expect(after[3]).toEqual(before[3]);
    expect(after[3]!.status).toBe('raw');
    expect(after[2]).toMatchObject({ status: 'attempting', attempts: 2, extra_attempts: 3 });
    const [again] = await claim(c, { now: T0 + 5, maxAttempts: 2, limit: 3 }).then((ls) => ls.filter((l) => l.id === stranded));
    expect(again).toMatchObject({ attempts: 2, maxAttempts: 5 });
  });

  it('a lead deleted during its call is not resurrected, and nothing fails', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const [l] = await claim(c);
    await db.kysely.deleteFrom('leads').where('id', '=', id!).execute();
    expect(await recordAttempt(db, l!, attempt())).toEqual({ result: 'gone' });
    expect(await db.queue.release(l!)).toBe(false);
    expect(await leadRow(db, id!)).toBeUndefined();
    expect(await attemptRows(db, id!)).toEqual([]);
  });

  it('the call log outlives a deleted lead', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const [l] = await claim(c);
    await recordAttempt(db, l!, attempt());
    await db.kysely.deleteFrom('leads').where('id', '=', id!).execute();
    expect(await leadRow(db, id!)).toBeUndefined();
    expect(await attemptRows(db, id!)).toHaveLength(1);
  });

  /** opens the attempt of a planned close, as the worker does before placing the call */
  const open = async (lead: ClaimedLead, attemptId: string) =>
    (await db.queue.open([{ attemptId, lead, phoneNumber: lead.phoneNumber, startedAt: T0, deadlineAt: T0 + LEASE }], T0))[0];

  it('closes a batch in one go: each lead moves, or is reported gone or lost, and every attempt is kept', async () => {
    const c = await makeCampaign(db);
    const ids = await seedLeads(db, c, [{}, {}, {}, {}]);
    const claimed = await claim(c);
    const by = (id: string) => claimed.find((l) => l.id === id)!;
    const plans = ids.map((id, i) => planAttempt(by(id), attempt({ success: i === 0, reason: `call ${i}` })));
    for (const [i, id] of ids.entries()) expect(await open(by(id), plans[i]!.attemptId)).toBe('opened');
    // during the calls: one lead is deleted, another's claim given back
    await db.kysely.deleteFrom('leads').where('id', '=', ids[2]!).execute();
    await db.queue.release(by(ids[3]!));
    expect(await db.queue.close(plans, 'dialer', T0 + 1000)).toEqual([
      { result: 'recorded', status: 'concluded', attempt: 1 },
      { result: 'recorded', status: 'attempting', attempt: 1 },
      { result: 'gone' },
      { result: 'claim lost' },
    ]);
    expect((await attemptRows(db, ids[1]!)).map((a) => a.reason)).toEqual(['call 1']);
    // the call was placed: its attempt is recorded even though the lead was given back
    expect((await attemptRows(db, ids[3]!)).map((a) => [a.state, a.reason])).toEqual([['closed', 'call 3']]);
    // a second close of the same attempts changes nothing
    expect((await db.queue.close(plans, 'dialer', T0 + 2000)).map((r) => r.result)).toEqual([
      'already closed',
      'already closed',
      'already closed',
      'already closed',
    ]);
  });

  it('a close of an attempt already closed moves no lead, even one whose claim still holds', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const [lead] = await claim(c);
    const plan = planAttempt(lead!, attempt());
    expect(await open(lead!, plan.attemptId)).toBe('opened');
    // closed first by something that moved no lead (a close that found no lead to move)
    expect(await db.queue.close([{ ...plan, move: null }], 'recovery', T0 + 500)).toEqual([{ result: 'gone' }]);
    expect(await db.queue.close([plan], 'dialer', T0 + 1000)).toEqual([{ result: 'already closed' }]);
    // the lead is as the claim left it: held, no attempt counted, no move made by the second close
    expect(await leadRow(db, id!)).toMatchObject({ status: 'attempting', attempts: 0, claimed_by: 'w1' });
  });

  it('refuses to open an attempt for a lead deleted or a claim lost before the call', async () => {
    const c = await makeCampaign(db);
    const [gone, lost] = await seedLeads(db, c, [{}, {}]);
    const claimed = await claim(c);
    await db.kysely.deleteFrom('leads').where('id', '=', gone!).execute();
    await db.queue.release(claimed.find((l) => l.id === lost)!);
    expect(await open(claimed.find((l) => l.id === gone)!, 'at_gone')).toBe('gone');
    expect(await open(claimed.find((l) => l.id === lost)!, 'at_lost')).toBe('claim lost');
    expect(await attemptRows(db, lost!)).toEqual([]);
  });

  it('refuses to open an attempt under a lapsed lease, which recovery may be ending at that moment', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const [lead] = await claim(c);
    const lapsed = T0 + LEASE + 1;
    const opening = { attemptId: 'at_lapsed', lead: lead!, phoneNumber: lead!.phoneNumber, startedAt: lapsed, deadlineAt: lapsed + LEASE };
    expect(await db.queue.open([opening], lapsed)).toEqual(['claim lost']);
    expect(await attemptRows(db, id!)).toEqual([]);
    // recovery ends it as a claim that never called: due again at once
    expect(await db.queue.releaseExpired(lapsed, c)).toBe(1);
    expect(await leadRow(db, id!)).toMatchObject({ status: 'raw', claimed_by: null, attempts: 0 });
  });

  it('the recorder writes calls that finish together in shared batches; a bad move is refused before anything is written', async () => {
    const c = await makeCampaign(db);
    const ids = await seedLeads(
      db,
      c,
      Array.from({ length: 20 }, () => ({})),
    );
    const claimed = await claim(c);
    const recorder = new AttemptRecorder(db, () => T0, 8);
    expect(() => planAttempt({ ...claimed[0]!, previousStatus: 'concluded' }, attempt())).toThrow(LifecycleError);
    const plans = claimed.map((l) => planAttempt(l, attempt({ success: true })));
    for (const [i, l] of claimed.entries()) await open(l, plans[i]!.attemptId);
    const results = await Promise.all(plans.map((p) => recorder.close(p)));
    expect(results.every((r) => r.result === 'recorded')).toBe(true);
    for (const id of ids) expect((await leadRow(db, id))!.status).toBe('concluded');
  });

  it('a release undoes the claim: status, due time and claim as before it, and a learnt zone set kept', async () => {
    const c = await makeCampaign(db);
    const later = new Date(T0 - MIN).toISOString();
    const [a, b, tried] = await seedLeads(db, c, [{}, { scheduledFor: later }, {}]);
    const before = await Promise.all([a!, b!].map((id) => leadRow(db, id)));
    // "tried" has had a failed attempt: it is attempting, due again after the retry delay (0 here).
    const first = await claim(c, { limit: 10 });
    for (const l of first) if (l.id !== tried) expect(await db.queue.release(l)).toBe(true);
    expect(await Promise.all([a!, b!].map((id) => leadRow(db, id)))).toEqual(before);
    await recordAttempt(db, first.find((l) => l.id === tried)!, attempt({ retryDelayMs: 0, finishedAt: T0 }));
    const triedBefore = await leadRow(db, tried!);
    const claimed = await claim(c, { now: T0 + 1, limit: 10 });
    expect(claimed.map((l) => l.id).sort()).toEqual([a, b, tried].sort());
    expect((await leadRow(db, a!))!.status).toBe('attempting');
    const by = (id: string) => claimed.find((l) => l.id === id)!;
    expect(await db.queue.release(by(a!))).toBe(true);
    expect(await db.queue.release(by(b!), { localZones: 7 })).toBe(true);
    expect(await db.queue.release(by(tried!))).toBe(true);
    expect(await leadRow(db, a!)).toEqual(before[0]);
    expect(await leadRow(db, b!)).toEqual({ ...before[1], local_zones: 7 });
    expect(await leadRow(db, tried!)).toEqual(triedBefore);
    expect(triedBefore).toMatchObject({ status: 'attempting', attempts: 1, claimed_by: null });
    // released twice: the second finds no claim of its own and writes nothing
    expect(await db.queue.release(by(a!))).toBe(false);
    expect((await claim(c, { now: T0 + 2, limit: 10 })).map((l) => l.id).sort()).toEqual([a, b, tried].sort());
  });

  it('refuses a move the lifecycle does not allow, writing nothing', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const [l] = await claim(c);
    await recordAttempt(db, l!, attempt({ success: true }));
    const before = await leadRow(db, id!);
    const concluded: ClaimedLead = { ...l!, previousStatus: 'concluded' };
    await expect(recordAttempt(db, concluded, attempt())).rejects.toThrow(LifecycleError);
    const exhausted: ClaimedLead = { ...l!, previousStatus: 'exhausted' };
    await expect(recordAttempt(db, exhausted, attempt({ success: true }))).rejects.toThrow('cannot claim a lead that is exhausted');
    expect(await leadRow(db, id!)).toEqual(before);
    expect(await claim(c, { now: T0 + 10 * LEASE })).toEqual([]); // concluded is never claimed again
  });

  it('claims only from its own campaign, and the dueBy cut-off excludes leads that fell due after it', async () => {
    const c1 = await makeCampaign(db);
    const c2 = await makeCampaign(db);
    await seedLeads(db, c1, [{}]);
    const [late] = await seedLeads(db, c2, [{ scheduledFor: new Date(T0).toISOString() }, {}]);
    expect(await claim(c2, { dueBy: T0 - 1 })).toHaveLength(1);
    expect((await claim(c2, { dueBy: T0 })).map((l) => l.id)).toEqual([late]);
  });
});
