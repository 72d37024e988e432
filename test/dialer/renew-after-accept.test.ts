/**
 * A lease renewal never shortens a lease (src/store/shared/claims.ts renew).
 * `accept` keeps the lead of a call whose outcome comes later held until the
 * campaign's call timeout; a renewal the worker sent while the provider was
 * still answering can reach the database after it (another connection on
 * PostgreSQL; on SQLite, queued behind accept's transaction). Were it to put
 * the lease back to the claim timeout, recovery would close the accepted call
 * as `unknown` within a minute and its real outcome report would get a 404.
 * docs/dialer.md "Outcomes reported later".
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOutcome } from '../../src/dialer/outcomes.js';
import { recoverStale } from '../../src/dialer/recovery.js';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import type { QueueStore } from '../../src/store/queue.js';
import { availableStores, useStore } from '../helpers/db.js';
import { type Stub, startStub } from './http-stub.js';
import { makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });

describe.each(await availableStores())('a renewal landing after the acceptance of a call on %s', (kind) => {
  let db: Store;
  let phone: Stub;
  useStore(kind, (opened) => {
    db = opened;
  });
  beforeAll(async () => {
    // the telephony system takes a moment, then accepts the call: its outcome comes later
    phone = await startStub(null, () => ({ status: 202, body: { accepted: true, callId: 'call-1' }, delayMs: 250 }));
  });
  afterAll(async () => {
    await phone?.close();
  });

  it('keeps the accepted call held until its call timeout, so its outcome report is recorded', async () => {
    const campaignId = await makeCampaign(db, { provider: 'webhook', provider_url: phone.url, call_timeout_ms: 30 * 60_000 });
    const [leadId] = await seedLeads(db, campaignId, [{}]);
    const { company_id: companyId } = (await db.campaigns.byId(campaignId))!;

    // The first renewal sent while the call is being placed reaches the database
    // only after the acceptance was written (the two race; this fixes their order).
    let accepted!: () => void;
    const acceptedOnce = new Promise<void>((r) => (accepted = r));
    let held = false;
    const queue: QueueStore = Object.create(db.queue);
    queue.accept = async (...args) => {
      const r = await db.queue.accept(...args);
      accepted();
      return r;
    };
    queue.renew = async (worker, seqs, until) => {
      if (!held) {
        held = true;
        await acceptedOnce;
      }
      return db.queue.renew(worker, seqs, until);
    };
    const dialer = new Dialer({ store: { ...db, queue }, logger: silent, campaignIds: [campaignId], claimTimeoutMs: 300 });
    await dialer.runOnce();
    const [attempt] = await db.kysely.selectFrom('attempts').selectAll().where('lead_id', '=', leadId!).execute();
    expect(attempt).toMatchObject({ state: 'accepted' });
    // let the held renewal land, then pass the claim timeout (far inside the 30 min call timeout)
    await new Promise((r) => setTimeout(r, 700));
    await recoverStale(db, Date.now(), silent);

    const after = await db.kysely.selectFrom('attempts').selectAll().where('lead_id', '=', leadId!).executeTakeFirst();
    expect(after).toMatchObject({ state: 'accepted', closed_by: null });
    const recorded = await reportOutcome(
      db,
      { companyId, campaignId: null },
      attempt!.attempt_id,
      { success: true, outcome: 'answered' },
      Date.now(),
    );
    expect(recorded).toMatchObject({ recorded: true, leadStatus: 'concluded' });
  });

  it('still extends a shorter lease', async () => {
    const campaignId = await makeCampaign(db);
    const [leadId] = await seedLeads(db, campaignId, [{}]);
    const now = Date.parse('2026-03-10T14:00:00.000Z');
    const [lead] = await db.queue.claim({ campaignId, maxAttempts: 3, workerId: 'w1', limit: 1, now, leaseMs: 60_000, openZones: null });
    expect(lead?.id).toBe(leadId);
    expect(await db.queue.renew('w1', [lead!.seq], now + 120_000)).toEqual(new Set([lead!.seq]));
    // a renewal computed earlier, landing late, keeps the later expiry
    expect(await db.queue.renew('w1', [lead!.seq], now + 90_000)).toEqual(new Set([lead!.seq]));
    const row = await db.kysely.selectFrom('leads').select('next_attempt_at').where('id', '=', leadId!).executeTakeFirst();
    expect(row?.next_attempt_at).toBe(new Date(now + 120_000).toISOString());
  });
});
