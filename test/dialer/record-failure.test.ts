/**
 * A call that was placed, whose end could not be recorded (a transient
 * database error when its attempt is closed): the worker does not give the
 * lead back as if nothing had happened (raw again, no attempt counted, due at
 * once), since the call happened. It ends the lead's lease instead, and
 * recovery closes the attempt as `unknown`, counted like a failed one: the
 * lead waits its retry delay. docs/dialer.md "Attempts, claims and crashes".
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import type { QueueStore } from '../../src/store/queue.js';
import { availableStores, useStore } from '../helpers/db.js';
import { attemptRows, dialerAt, leadRow, makeCampaign, seedLeads } from './support.js';

const T0 = Date.parse('2026-03-10T14:00:00.000Z');

describe.each(await availableStores())('a placed call whose end could not be recorded on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it('still counts, and the person is not called again before the retry delay', async () => {
    const campaignId = await makeCampaign(db, { max_attempts: 3, retry_delay_ms: 30 * 60_000 });
    const [leadId] = await seedLeads(db, campaignId, [{}]);

    // the store as the dialer sees it: the first close of a call fails once (a connection reset)
    let failures = 0;
    const queue: QueueStore = Object.create(db.queue);
    queue.close = async (batch, by, now) => {
      if (by === 'dialer' && failures === 0) {
        failures++;
        throw new Error('Connection terminated unexpectedly');
      }
      return db.queue.close(batch, by, now);
    };
    await new Dialer({
      store: { ...db, queue },
      logger: pino({ level: 'silent' }),
      campaignIds: [campaignId],
      now: () => T0,
      random: () => 0.99, // the call fails (no-answer): the lead has attempts left
      simulateDurationMs: [0, 0],
      claimTimeoutMs: 60_000,
    }).runOnce();
    expect(failures).toBe(1);
    const [open] = await attemptRows(db, leadId!);
    expect(open).toMatchObject({ state: 'open', attempt: 1 });
    // not given back: it keeps the status the claim gave it, and no slot
    expect(await leadRow(db, leadId!)).toMatchObject({ status: 'attempting', attempts: 0 });
    expect(await db.queue.inFlight(campaignId, T0)).toBe(0);

    // a minute later another worker runs: its recovery closes the attempt, and it calls nobody
    await dialerAt(db, campaignId, T0 + 60_000).runOnce();
    const attempts = await attemptRows(db, leadId!);
    expect(attempts).toMatchObject([{ state: 'closed', closed_by: 'recovery', outcome: 'unknown', counts: 1 }]);
    const lead = await leadRow(db, leadId!);
    expect(lead).toMatchObject({ status: 'attempting', attempts: 1, claimed_by: null });
    // due after the retry delay, counted from the recovery
    expect(Date.parse(lead!.next_attempt_at!)).toBe(T0 + 60_000 + 30 * 60_000);
  });
});
