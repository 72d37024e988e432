/**
 * A dialer's reads of the events table after notices: one at once after a
 * quiet spell (speed to lead), and in a burst at most one per MIN_GAP_MS, with
 * nothing written meanwhile missed.
 */
import { describe, expect, it, vi } from 'vitest';
import { MIN_GAP_MS, Wakeups } from '../../src/dialer/wakeups.js';
import type { EventMark } from '../../src/store/events.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { newId } from '../../src/ids.js';
import { makeCampaign } from './support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let numbers = 0;
/** a lead created as the API creates one: with its lead.created event */
const addLead = (db: Store, campaignId: string) =>
  db.leads.insertMany(
    campaignId,
    [
      {
        id: newId('ld_'),
        phoneNumber: `+1415${String(6_000_000 + numbers++)}`,
        externalId: null,
        metadata: '{}',
        scheduledFor: null,
        priority: 0,
      },
    ],
    Date.now(),
  );

/** a lead's event written in a transaction that stays open until released: its id taken, not yet committed */
async function heldOpen(db: Store, campaignId: string) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let taken!: () => void;
  const idTaken = new Promise<void>((r) => (taken = r));
  const committed = db.transaction(async (tx) => {
    await addLead(tx as unknown as Store, campaignId);
    taken();
    await held;
  });
  await idTaken;
  return {
    commit: async () => {
      release();
      await committed;
    },
  };
}

/** db's events answering each read with the next of `answers` (then nothing), and the skipped ids each read asked for */
function scripted(db: Store, answers: EventMark[][]) {
  const asked: (readonly number[])[] = [];
  const lastId = vi.spyOn(db.events, 'lastId').mockResolvedValue(0);
  const marks = vi.spyOn(db.events, 'marks').mockImplementation(async (_afterId, _limit, also = []) => {
    asked.push(also);
    return answers.shift() ?? [];
  });
  return {
    asked,
    restore: () => {
      marks.mockRestore();
      lastId.mockRestore();
    },
  };
}

/** a Wakeups on db that collects the campaigns it wakes (`full`: the dialer can take no call) */
function watching(db: Store, full?: () => boolean) {
  const woken = new Set<string>();
  const w = new Wakeups(
    db,
    (ids) => {
      for (const id of ids) woken.add(id);
    },
    (err) => {
      throw err;
    },
    full,
  );
  return { w, woken };
}

describe.each(await availableStores())('wake-ups on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it('reads at once after a quiet spell, and a burst of notices together, MIN_GAP_MS apart, missing nothing', async () => {
    // each read: when the watcher noted it began (the time its gap is counted from) and when the query was sent.
    // The gap is checked between the noted starts: on a loaded machine the process can be descheduled for
    // milliseconds between noting the start and sending the query, so two sends can be closer than the gap
    // (CI saw 16.5 ms) although the reads began MIN_GAP_MS apart.
    const reads: { began: number; sent: number }[] = [];
    let pending = 0;
    const marks = db.events.marks.bind(db.events);
    const spy = vi.spyOn(db.events, 'marks').mockImplementation(async (afterId, limit, also) => {
      reads.push({ began: (w as unknown as { lastReadAt: number }).lastReadAt, sent: performance.now() });
      pending++;
      try {
        return await marks(afterId, limit, also);
      } finally {
        pending--;
      }
    });
    const { w, woken } = watching(db);
    try {
      await w.start();
      // quiet: no read in flight and none for a while (on PostgreSQL the LISTEN, once
      // connected, asks for one more read; on a loaded machine that can take a while)
      for (let seen = -1; seen !== reads.length || pending > 0; ) {
        seen = reads.length;
        await sleep(MIN_GAP_MS * 3);
      }

      // quiet: the notice is read in the same turn, before any timer
      const before = reads.length;
      w.read();
      expect(reads.length).toBe(before + 1);
      const a = await makeCampaign(db);
      await addLead(db, a);
      w.read();
      await vi.waitFor(() => expect(woken.has(a)).toBe(true));

      // a burst: leads arrive between notices; every campaign is woken, and no two reads are closer than the gap
      const burst: string[] = [];
      const from = reads.length;
      for (let i = 0; i < 5; i++) {
        const c = await makeCampaign(db);
        burst.push(c);
        await addLead(db, c);
        for (let j = 0; j < 10; j++) w.read();
        await sleep(2);
      }
      await vi.waitFor(() => expect(burst.filter((c) => !woken.has(c))).toEqual([]));
      const times = reads.slice(from - 1);
      expect(times.length).toBeLessThan(1 + 50);
      for (const { began, sent } of times) expect(sent).toBeGreaterThanOrEqual(began);
      for (let i = 1; i < times.length; i++) expect(times[i]!.began - times[i - 1]!.began).toBeGreaterThanOrEqual(MIN_GAP_MS);
    } finally {
      await w.stop();
      spy.mockRestore();
    }
  });

  it.skipIf(kind !== 'postgres')(
    'wakes a campaign whose event committed after a later id was read (ids are not committed in order)',
    async () => {
      const { w, woken } = watching(db);
      const early = await makeCampaign(db);
      const late = await makeCampaign(db);
      let first: Awaited<ReturnType<typeof heldOpen>> | undefined;
      try {
        await w.start();
        // the first transaction takes its event id and stays open
        first = await heldOpen(db, early);
        // a second one takes the next id, commits, and is read
        await addLead(db, late);
        await vi.waitFor(() => expect(woken.has(late)).toBe(true));
        expect(woken.has(early)).toBe(false);
        // the first commits: its notice must find the id the read skipped
        await first.commit();
        await vi.waitFor(() => expect(woken.has(early)).toBe(true), { timeout: 2000 });
      } finally {
        await first?.commit();
        await w.stop();
      }
    },
  );

  it.skipIf(kind !== 'postgres')(
    'wakes a campaign whose event was still to commit, below the last id, when the dialer started',
    async () => {
      const { w, woken } = watching(db);
      const early = await makeCampaign(db);
      const late = await makeCampaign(db);
      const first = await heldOpen(db, early);
      try {
        await addLead(db, late);
        // the dialer starts with the second id as its last, the first still open
        await w.start();
        await first.commit();
        await vi.waitFor(() => expect(woken.has(early)).toBe(true), { timeout: 2000 });
        // what was there before it started wakes nothing
        expect(woken.has(late)).toBe(false);
      } finally {
        await first.commit();
        await w.stop();
      }
    },
  );

  it.skipIf(kind !== 'sqlite')('asks again for the ids a read skipped, the newest 1000 of them, until they are found', async () => {
    // the rows a PostgreSQL read can return: 1, then 1502 with 1500 ids between still to commit
    const { asked, restore } = scripted(db, [
      [
        { id: 1, type: 'attempt.started', campaign_id: 'cp_a' },
        { id: 1502, type: 'attempt.started', campaign_id: 'cp_a' },
      ],
      [{ id: 700, type: 'lead.created', campaign_id: 'cp_late' }],
      [],
    ]);
    const { w, woken } = watching(db);
    try {
      await w.start();
      await vi.waitFor(() => expect(asked.length).toBeGreaterThanOrEqual(1));
      await sleep(MIN_GAP_MS * 2);
      w.read();
      await vi.waitFor(() => expect(woken.has('cp_late')).toBe(true));
      expect(asked[0]).toEqual([]);
      // 502-1501: the newest 1000 of the 1500 skipped
      expect(asked[1]).toEqual(Array.from({ length: 1000 }, (_, i) => 502 + i));
      await sleep(MIN_GAP_MS * 2);
      w.read();
      await vi.waitFor(() => expect(asked.length).toBeGreaterThanOrEqual(3));
      expect(asked[2]).toHaveLength(999);
      expect(asked[2]).not.toContain(700);
    } finally {
      await w.stop();
      restore();
    }
  });

  it.skipIf(kind !== 'sqlite')('gives a skipped id up after a minute (a transaction that rolled back)', async () => {
    const { asked, restore } = scripted(db, [
      [
        { id: 1, type: 'attempt.started', campaign_id: 'cp_a' },
        { id: 5, type: 'attempt.started', campaign_id: 'cp_a' },
      ],
    ]);
    // the wake-ups' clock, moved on by hand
    let ahead = 0;
    const realNow = performance.now.bind(performance);
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => realNow() + ahead);
    const { w } = watching(db);
    try {
      await w.start();
      // the 250 ms re-read asks for 2-4
      await vi.waitFor(() => expect(asked.at(-1)).toEqual([2, 3, 4]), { timeout: 2000 });
      ahead = 59_000;
      const seen = asked.length;
      await vi.waitFor(() => expect(asked.length).toBeGreaterThan(seen), { timeout: 2000 });
      expect(asked.at(-1)).toEqual([2, 3, 4]);
      ahead = 61_000;
      await sleep(MIN_GAP_MS * 2);
      w.read();
      await vi.waitFor(() => expect(asked.at(-1)).toEqual([]), { timeout: 2000 });
      // and with nothing skipped, no read comes without a notice (after a re-read already timed)
      await sleep(300);
      const after = asked.length;
      await sleep(600);
      expect(asked.length).toBe(after);
    } finally {
      await w.stop();
      clock.mockRestore();
      restore();
    }
  });

  it('reads nothing while the dialer is at its --max-calls, and what came meanwhile once a call ends', async () => {
    let full = false;
    let reads = 0;
    const marks = db.events.marks.bind(db.events);
    const spy = vi.spyOn(db.events, 'marks').mockImplementation(async (afterId, limit, also) => {
      reads++;
      return marks(afterId, limit, also);
    });
    const { w, woken } = watching(db, () => full);
    try {
      await w.start();
      const a = await makeCampaign(db);
      await addLead(db, a);
      // (SQLite notices commits of other connections only: the notice by hand)
      w.read();
      await vi.waitFor(() => expect(woken.has(a)).toBe(true), { timeout: 2000 });
      full = true;
      woken.clear();
      await sleep(MIN_GAP_MS * 2);
      const before = reads;
      const b = await makeCampaign(db);
      await addLead(db, b);
      w.read();
      await sleep(300);
      expect(reads).toBe(before);
      expect(woken.size).toBe(0);
      // a call ended: the lead that came meanwhile wakes its campaign
      full = false;
      w.resume();
      await vi.waitFor(() => expect(woken.has(b)).toBe(true), { timeout: 2000 });
      // and nothing was put off the second time
      const after = reads;
      w.resume();
      expect(reads).toBe(after);
    } finally {
      await w.stop();
      spy.mockRestore();
    }
  });

  it('keeps asking for an id skipped before the dialer filled up, however long its calls (found by a review)', async () => {
    // Id 1 (campaign B) is taken first and commits after id 2 (campaign A) was read: skipped. It
    // commits while the dialer is at its --max-calls, through a call longer than a skipped id's
    // wait (61 s, on the wake-ups' clock); when the call ends, its read must still ask for id 1.
    let committed = false;
    const lastId = vi.spyOn(db.events, 'lastId').mockResolvedValue(0);
    const marks = vi.spyOn(db.events, 'marks').mockImplementation(async (afterId, _limit, also = []) => {
      const rows: EventMark[] = [];
      if (committed && also.includes(1)) rows.push({ id: 1, type: 'lead.created', campaign_id: 'cp_B' });
      if (afterId < 2) rows.push({ id: 2, type: 'lead.created', campaign_id: 'cp_A' });
      return rows;
    });
    let ahead = 0;
    const realNow = performance.now.bind(performance);
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => realNow() + ahead);
    let full = false;
    const { w, woken } = watching(db, () => full);
    try {
      await w.start();
      await vi.waitFor(() => expect(woken.has('cp_A')).toBe(true), { timeout: 2000 });
      full = true;
      await sleep(100);
      committed = true;
      w.read();
      await sleep(600);
      ahead = 61_000;
      w.read();
      await sleep(300);
      expect(woken.has('cp_B')).toBe(false);
      full = false;
      w.resume();
      await vi.waitFor(() => expect(woken.has('cp_B')).toBe(true), { timeout: 2000 });
    } finally {
      await w.stop();
      clock.mockRestore();
      marks.mockRestore();
      lastId.mockRestore();
    }
  });
});
