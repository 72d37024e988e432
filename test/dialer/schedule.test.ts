/**
 * The idle poll's safety net (schedule.ts): a campaign with nothing known to
 * fall due is asked again after the poll interval with one statement (the
 * earliest due time of all), and claimed only when that finds something due.
 */
import { describe, expect, it } from 'vitest';
import { loadDialerCampaigns } from '../../src/dialer/campaign.js';
import { Schedule } from '../../src/dialer/schedule.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { makeCampaign, seedLeads } from './support.js';

const IDLE = 60_000;

describe.each(await availableStores())('the idle poll on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  /** n campaigns whose one lead falls due a year from now: nothing of theirs is due */
  const idleCampaigns = async (n: number) => {
    const year = new Date(Date.now() + 365 * 86_400_000).toISOString();
    const idle = [];
    for (let i = 0; i < n; i++) {
      const id = await makeCampaign(db);
      await seedLeads(db, id, [{ scheduledFor: year }]);
      idle.push(await load(id));
    }
    return idle;
  };
  const load = async (id: string) => {
    const [c] = await loadDialerCampaigns(db, [id], {}, (_, err) => {
      throw err;
    });
    return c!;
  };

  it('nextDue(null) is the earliest due time of all: 0 for a lead with no time set, null for none', async () => {
    const id = await makeCampaign(db);
    expect(await db.queue.nextDue(id, null)).toBeNull();
    await seedLeads(db, id, [{ scheduledFor: '2030-01-01T00:00:00.000Z', priority: 5 }]);
    expect(await db.queue.nextDue(id, null)).toBe(Date.parse('2030-01-01T00:00:00.000Z'));
    await seedLeads(db, id, [{ priority: 1 }]);
    expect(await db.queue.nextDue(id, null)).toBe(0);
    // the next due after now still skips what is due already
    expect(await db.queue.nextDue(id, Date.now())).toBe(Date.parse('2030-01-01T00:00:00.000Z'));
  });

  it('nextDueMany answers nextDue(id, null) for many campaigns at once, listed numbers and unknown ids included', async () => {
    const empty = await makeCampaign(db);
    const later = await makeCampaign(db);
    await seedLeads(db, later, [{ scheduledFor: '2030-01-01T00:00:00.000Z', priority: 5 }, { scheduledFor: '2031-01-01T00:00:00.000Z' }]);
    const now = await makeCampaign(db);
    await seedLeads(db, now, [{ scheduledFor: '2030-01-01T00:00:00.000Z', priority: 9 }, { priority: 1 }]);
    // its only lead's number is on the company's do-not-call list: nothing of it is due
    const listed = await makeCampaign(db);
    await seedLeads(db, listed, [{ phoneNumber: '+14155551001' }]);
    const { company_id } = (await db.campaigns.byId(listed))!;
    await db.transaction((tx) => tx.dnc.add(company_id, ['+14155551001'], { source: 'api', reason: null, now: Date.now() }));
    const ids = [empty, later, now, listed, 'cp_none'];
    const many = await db.queue.nextDueMany(ids);
    for (const id of ids) expect(many.get(id) ?? null).toBe(await db.queue.nextDue(id, null));
    expect(Object.fromEntries(many)).toEqual({
      [empty]: null,
      [later]: Date.parse('2030-01-01T00:00:00.000Z'),
      [now]: 0,
      [listed]: null,
      cp_none: null,
    });
  });

  it('asks a campaign the poll comes back to only when something is due, and waits for the next due time otherwise', async () => {
    const id = await makeCampaign(db);
    const later = Date.now() + 10 * IDLE;
    await seedLeads(db, id, [{ scheduledFor: new Date(later).toISOString() }]);
    const c = await load(id);
    const schedule = new Schedule(db, IDLE, 1000);
    const now = Date.now();
    // never asked yet: due for a check, which finds nothing due and waits for the lead's time
    expect(await schedule.isDue(c, now)).toBe(true);
    expect(await schedule.pollFinds(c, now)).toBe(false);
    expect(schedule.nextCheck(now)).toBe(now + IDLE);
    // asked, nothing due before the poll: the next check is the poll's
    await schedule.after(c, 'idle', now);
    expect(await schedule.isDue(c, now + IDLE - 1)).toBe(false);
    expect(await schedule.isDue(c, now + IDLE)).toBe(true);
    // the poll finds nothing due: not asked; it waits another interval (the lead is later still)
    expect(await schedule.pollFinds(c, now + IDLE)).toBe(false);
    expect(schedule.nextCheck(now + IDLE)).toBe(now + 2 * IDLE);
    // a lead that fell due with no wake-up (written by hand): the poll finds it and the campaign is asked
    await seedLeads(db, id, [{}]);
    expect(await schedule.isDue(c, now + 2 * IDLE)).toBe(true);
    expect(await schedule.pollFinds(c, now + 2 * IDLE)).toBe(true);
    // a wake-up skips the check
    await schedule.after(c, 'idle', now);
    schedule.wake(c.id);
    expect(await schedule.pollFinds(c, now)).toBe(true);
  });

  it('a first load wakes no campaign (each is checked with one statement); a changed row wakes its campaign', async () => {
    const idle = await makeCampaign(db);
    const busy = await makeCampaign(db);
    await seedLeads(db, busy, [{}]);
    const [a, b] = [await load(idle), await load(busy)];
    const schedule = new Schedule(db, IDLE, 1000);
    const now = Date.now();
    schedule.refreshed([a, b], []);
    // the idle campaign is checked, not claimed; the one with a due lead is asked
    expect(await schedule.isDue(a, now)).toBe(true);
    expect(await schedule.pollFinds(a, now)).toBe(false);
    expect(await schedule.pollFinds(b, now)).toBe(true);
    // at the next poll the idle one is checked again, not claimed
    expect(await schedule.isDue(a, now + IDLE)).toBe(true);
    expect(await schedule.pollFinds(a, now + IDLE)).toBe(false);
    // its settings change: asked at once, without the check
    await schedule.after(a, 'idle', now);
    const changed = { ...a, row: { ...a.row, name: 'renamed' } };
    schedule.refreshed([changed], [a]);
    expect(await schedule.isDue(changed, now)).toBe(true);
    expect(await schedule.pollFinds(changed, now)).toBe(true);
  });

  it("a pass asks woken campaigns first and gives the poll's checks a slice; the unchecked stay due for the next pass", async () => {
    const idle = await idleCampaigns(5);
    const woken = await load(await makeCampaign(db));
    await seedLeads(db, woken.id, [{}]);
    // a statement for each campaign's check: the slice can end between them
    const schedule = new Schedule(db, IDLE, 1000, 1);
    schedule.refreshed([...idle, woken], []);
    schedule.wake(woken.id);
    // every reading of this clock is 40 ms later: the 100 ms slice ends after a check or two
    let t = Date.now();
    const now = () => (t += 40);
    const asked: string[] = [];
    const ask = async (c: { id: string }) => {
      asked.push(c.id);
      return 'idle' as const;
    };
    expect(await schedule.pass([...idle, woken], ask, { now, stopping: () => false })).toBe('more');
    expect(asked).toEqual([woken.id]);
    const still = [];
    for (const c of idle) if (await schedule.isDue(c, t)) still.push(c.id);
    expect(still.length).toBeGreaterThan(0);
    expect(still.length).toBeLessThan(idle.length);
    // the next passes check the rest; none is asked (nothing of theirs is due)
    for (let i = 0; i < 5; i++) await schedule.pass(idle, ask, { now, stopping: () => false });
    for (const c of idle) expect(await schedule.isDue(c, t)).toBe(false);
    expect(asked).toEqual([woken.id]);
  });

  it('checks the campaigns of a pass in one statement per batch, not one each', async () => {
    const idle = await idleCampaigns(5);
    const due = await load(await makeCampaign(db));
    await seedLeads(db, due.id, [{}]);
    const batches: string[][] = [];
    const nextDueMany = db.queue.nextDueMany.bind(db.queue);
    const counting = (ids: string[]) => {
      batches.push(ids);
      return nextDueMany(ids);
    };
    const spied = Object.create(db, { queue: { value: Object.assign(Object.create(db.queue), { nextDueMany: counting }) } }) as Store;
    const batched = new Schedule(spied, IDLE, 1000);
    const asked: string[] = [];
    const ask = async (c: { id: string }) => {
      asked.push(c.id);
      return 'idle' as const;
    };
    expect(await batched.pass([...idle, due], ask, { now: Date.now, stopping: () => false })).toBe('done');
    expect(batches).toEqual([[...idle, due].map((c) => c.id)]);
    // the campaign with a lead due is asked; the others wait for the poll, as one at a time would have them
    expect(asked).toEqual([due.id]);
    for (const c of idle) expect(await batched.isDue(c, Date.now())).toBe(false);
  });

  it('a lead that falls due while its campaign is being asked is asked for at once, not at the next poll', async () => {
    const id = await makeCampaign(db);
    const dueAt = Date.parse('2030-01-01T00:00:00.000Z');
    await seedLeads(db, id, [{ scheduledFor: new Date(dueAt).toISOString() }]);
    const c = await load(id);
    const schedule = new Schedule(db, IDLE, 1000);
    schedule.wake(id);
    // the claim reads the due leads a moment before the lead is due, and returns after it is
    let clock = dueAt - 5;
    const ask = async () => {
      clock = dueAt + 5;
      return 'idle' as const;
    };
    expect(await schedule.pass([c], ask, { now: () => clock, stopping: () => false })).toBe('done');
    expect(schedule.nextCheck(clock)).toBe(dueAt + 6);
    expect(await schedule.isDue(c, dueAt + 6)).toBe(true);
  });

  it("a campaign woken while it is being asked (a new lead's notice) is asked again, not left to the idle poll", async () => {
    const id = await makeCampaign(db);
    const c = await load(id);
    const schedule = new Schedule(db, IDLE, 1000);
    schedule.wake(id);
    const now = Date.now();
    // the claim has read the due leads (none) when the new lead's notice wakes the campaign
    const ask = async () => {
      schedule.wake(id);
      return 'idle' as const;
    };
    expect(await schedule.pass([c], ask, { now: () => now, stopping: () => false })).toBe('done');
    expect(await schedule.isDue(c, now)).toBe(true);
  });
});
