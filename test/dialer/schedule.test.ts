/**
 * The idle poll's safety net (schedule.ts): a campaign with nothing known to
 * fall due is asked again after the poll interval with one statement (the
 * earliest due time of all), and claimed only when that finds something due.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDialerCampaigns } from '../../src/dialer/campaign.js';
import { Schedule } from '../../src/dialer/schedule.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { makeCampaign, seedLeads } from './support.js';

const IDLE = 60_000;

describe.each(await availableStores())('the idle poll on %s', (kind) => {
  let store: TestStore;
  let db: Store;
  beforeAll(async () => {
    store = await createTestStore(kind);
    db = await store.open();
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

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
    // its settings change: asked at once, without the check
    await schedule.after(a, 'idle', now);
    const changed = { ...a, row: { ...a.row, name: 'renamed' } };
    schedule.refreshed([changed], [a]);
    expect(await schedule.isDue(changed, now)).toBe(true);
    expect(await schedule.pollFinds(changed, now)).toBe(true);
  });
});
