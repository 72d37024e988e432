/**
 * --require-consent on a real database: a lead is claimed only when its
 * metadata.consentAt holds an ISO 8601 timestamp, by the claim statement
 * itself (whatever the caller passes) and by the idle dialer's nextDue;
 * explain says "no consent recorded". A campaign without the setting calls
 * as before. docs/compliance.md "Consent gate".
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { updateCampaign } from '../../src/campaigns/service.js';
import { claimDue } from '../../src/dialer/claim.js';
import { explainLead } from '../../src/dialer/explain.js';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { leadRow, makeCampaign, seedLeads } from '../dialer/support.js';

const silent = pino({ level: 'silent' });
const T0 = Date.parse('2026-03-10T14:00:00.000Z');

describe.each(await availableStores())('the consent gate on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  const worker = (campaignId: string) =>
    new Dialer({ store: db, logger: silent, campaignIds: [campaignId], now: () => T0, random: () => 0, simulateDurationMs: [0, 0] });
  const claimAll = (campaignId: string) =>
    claimDue(db, { campaignId, maxAttempts: 3, workerId: 'w1', limit: 10, now: T0, leaseMs: 60_000 });

  it('only leads whose consentAt is a timestamp are claimed; nextDue and explain agree', async () => {
    const c = await makeCampaign(db, { require_consent: 1 });
    const [given, none, word, number, dateOnly] = await seedLeads(db, c, [
      { externalId: 'given', metadata: { consentAt: '2026-03-01T10:00:00Z', source: 'web form' } },
      { externalId: 'none', metadata: { source: 'web form' } },
      { externalId: 'word', metadata: { consentAt: 'yes' } },
      { externalId: 'number', metadata: { consentAt: 1772359200000 } },
      { externalId: 'date-only', metadata: { consentAt: '2026-03-01' } },
    ]);
    // the claim itself leaves them out, with no local window or other condition passed
    expect((await claimAll(c)).map((l) => l.id)).toEqual([given]);
    // the rest are never due (they would be due since always, 0): the only due time left is the claimed lead's lease
    expect(await db.queue.nextDue(c, null)).toBe(T0 + 60_000);
    expect(await db.queue.nextDueMany([c])).toEqual(new Map([[c, T0 + 60_000]]));
    const empty = await makeCampaign(db, { require_consent: 1 });
    await seedLeads(db, empty, [{ metadata: {} }]);
    expect(await db.queue.nextDue(empty, null)).toBeNull(); // an idle dialer sleeps
    expect(await db.queue.nextDueMany([empty, c])).toEqual(
      new Map([
        [empty, null],
        [c, T0 + 60_000],
      ]),
    );
    for (const id of [none, word, number, dateOnly]) expect(await leadRow(db, id!)).toMatchObject({ status: 'raw', claimed_by: null });

    const why = await explainLead(db, c, { externalId: 'none' }, T0);
    expect(why).toMatchObject({ due: false, reasons: ['no consent recorded'], nextDueAt: null });
    expect(why.details['no consent recorded']).toMatch(/metadata\.consentAt/);
    expect((await explainLead(db, c, { externalId: 'word' }, T0)).reasons).toEqual(['no consent recorded']);
  });

  it('the dialer calls the consented lead only; turned off, it calls the rest as before', async () => {
    const c = await makeCampaign(db, { require_consent: 1 });
    const [given, none] = await seedLeads(db, c, [{ metadata: { consentAt: '2026-03-01T10:00:00.000+01:00' } }, { metadata: {} }]);
    expect(await worker(c).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, given!))!.status).toBe('concluded');
    expect((await leadRow(db, none!))!.status).toBe('raw');
    await updateCampaign(db, c, { require_consent: 0 });
    expect((await explainLead(db, c, { phoneNumber: (await leadRow(db, none!))!.phone_number! }, T0)).due).toBe(true);
    expect(await db.queue.nextDue(c, null)).toBe(0);
    expect(await worker(c).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, none!))!.status).toBe('concluded');
  });

  it('a campaign without the setting claims leads without consent (unchanged)', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{ metadata: {} }]);
    expect((await claimAll(c)).map((l) => l.id)).toEqual([id]);
  });
});
