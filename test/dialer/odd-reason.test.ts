/**
 * Closing an attempt on PostgreSQL passes the batch through json_to_recordset,
 * which refused a reason holding a NUL (\u0000) or an unpaired surrogate
 * (JSON.stringify writes it as \udXXX), e.g. a webhook provider's free-text
 * `reason`, or one cut by slice(0, MAX_TEXT) inside an emoji: the close
 * failed and the lead stayed claimed until recovery. SQLite stored it. Both
 * now record the reason made storable (src/storable.ts).
 */
import { describe, expect, it } from 'vitest';
import { recordAttempt } from '../../src/dialer/attempts.js';
import { claimDue } from '../../src/dialer/claim.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { attemptRows, leadRow, makeCampaign, seedLeads } from './support.js';

const T0 = Date.parse('2026-03-10T14:00:00.000Z');

describe.each(await availableStores())('closing an attempt with an odd reason on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  async function closeWith(reason: string) {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const [lead] = await claimDue(db, { campaignId: c, maxAttempts: 3, workerId: 'w1', limit: 1, now: T0, leaseMs: 60_000 });
    const r = await recordAttempt(db, lead!, {
      success: false,
      outcome: 'failed',
      phoneNumber: lead!.phoneNumber,
      reason,
      startedAt: T0,
      finishedAt: T0 + 1000,
      retryDelayMs: 60_000,
    });
    return { id: id!, r };
  }

  it('a reason holding a NUL character is recorded', async () => {
    const { id, r } = await closeWith('provider said: a\u0000b');
    expect(r).toMatchObject({ result: 'recorded', attempt: 1 });
    expect((await leadRow(db, id))!.attempts).toBe(1);
    expect((await attemptRows(db, id)).map((a: any) => [a.state, a.reason])).toEqual([['closed', 'provider said: ab']]);
  });

  it('a reason cut inside a surrogate pair is recorded', async () => {
    const { id, r } = await closeWith(`${'x'.repeat(9)}😀`.slice(0, 10));
    expect(r).toMatchObject({ result: 'recorded', attempt: 1 });
    expect((await attemptRows(db, id)).map((a: any) => [a.state, a.reason])).toEqual([['closed', 'xxxxxxxxx\uFFFD']]);
  });
});
