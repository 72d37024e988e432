/**
 * `leadline purge --company ID --before DATE` as an operator runs it: a real
 * process on SQLite and PostgreSQL. The company's attempts and events older
 * than DATE go; those the call caps still count stay without their numbers,
 * so the caps hold; calls in progress, other companies and newer rows are
 * untouched. docs/compliance.md "Deleting data".
 */
import { execFile } from 'node:child_process';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { callCapFor } from '../../src/compliance/call-caps.js';
import { claimDue } from '../../src/dialer/claim.js';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { whereStored } from '../helpers/dump.js';
import { BIN } from '../helpers/server-process.js';
import { attemptRows, seedLeads } from '../dialer/support.js';

const silent = pino({ level: 'silent' });
const H = 3_600_000;
const D = 24 * H;

describe.each(await availableStores())('leadline purge on %s', (kind) => {
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

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL: store.url } }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const company = async (caps: string) => {
    const { companyId } = await createCompany(db, 'Purge Co');
    await db.companies.setCallCaps(companyId, caps);
    const { campaignId } = await createCampaign(db, {
      companyId,
      name: 'c',
      hours: 'mon-sun 00:00-24:00',
      local_window: '00:00-24:00',
      regional_rules: 'off',
    });
    return { companyId, campaignId };
  };
  /** a lead called once at `at` */
  const called = async (campaignId: string, phoneNumber: string, at: number) => {
    const [id] = await seedLeads(db, campaignId, [{ phoneNumber }], at);
    const dialer = new Dialer({
      store: db,
      logger: silent,
      campaignIds: [campaignId],
      now: () => at,
      random: () => 0,
      simulateDurationMs: [0, 0],
    });
    expect(await dialer.runOnce()).toMatchObject({ attempts: 1 });
    return id!;
  };
  const eventsBefore = async (companyId: string, at: number) =>
    Number(
      (await sql<{ n: number }>`select count(*) as n from events where company_id = ${companyId} and created_at < ${at}`.execute(db.kysely))
        .rows[0]!.n,
    );

  it('removes what is older than the date, keeps what the caps count without its number, and prints what it removed', async () => {
    const now = Date.now();
    const before = now - H;
    const { companyId, campaignId } = await company('1/1d');
    const other = await company('');
    const old = await called(campaignId, '+14155556001', now - 40 * D);
    const counted = await called(campaignId, '+14155556002', now - 2 * H);
    const recent = await called(campaignId, '+14155556003', now - 30 * 60_000);
    const othersOld = await called(other.campaignId, '+14155556004', now - 40 * D);
    // a call in progress, started before the date
    await seedLeads(db, campaignId, [{ phoneNumber: '+14155556005' }], now - 3 * H);
    const [held] = await claimDue(db, { campaignId, maxAttempts: 3, workerId: 'w1', limit: 1, now: now - 3 * H, leaseMs: 4 * H });
    const opening = { attemptId: 'at_purge_open', lead: held!, phoneNumber: '+14155556005', startedAt: now - 3 * H, deadlineAt: now + H };
    expect(await db.queue.open([opening], now - 3 * H)).toEqual(['opened']);
    const events = await eventsBefore(companyId, before);
    expect(events).toBeGreaterThan(0);

    const r = await cli(['purge', '--company', companyId, '--before', new Date(before).toISOString(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      companyId,
      before: new Date(before).toISOString(),
      attemptsDeleted: 1,
      attemptsAnonymised: 1,
      attemptsInProgress: 1,
      eventsDeleted: events,
    });
    expect(await attemptRows(db, old)).toEqual([]);
    expect(await attemptRows(db, counted)).toMatchObject([{ phone_number: null, phone_digest: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(await attemptRows(db, recent)).toMatchObject([{ phone_number: '+14155556003', phone_digest: null }]);
    expect(await attemptRows(db, othersOld)).toMatchObject([{ phone_number: '+14155556004' }]);
    expect(await eventsBefore(companyId, before)).toBe(0);
    expect(await eventsBefore(other.companyId, before)).toBeGreaterThan(0);
    // the number of the counted call is in no attempt any more (the lead itself still holds it), and the cap still holds
    expect((await whereStored(db, '+14155556002')).map((x) => x.at)).toEqual(['leads.phone_number']);
    expect(await callCapFor(db, companyId, '+14155556002', now)).toEqual({ cap: '1/1d', until: now - 2 * H + D });

    // again: nothing left to remove; the text form says what it did
    const again = await cli(['purge', '--company', companyId, '--before', new Date(before).toISOString()]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      [
        `company ${companyId}: removed what was older than ${new Date(before).toISOString()}`,
        '  attempts deleted             0',
        '  attempts kept for the caps   0 (their numbers removed; the call caps still count them)',
        '  attempts in progress, kept   1',
        '  events deleted               0',
        '',
      ].join('\n'),
    );
  });

  it('refuses bad arguments with exit 2 and a clear message, and removes nothing', async () => {
    const { companyId, campaignId } = await company('');
    const lead = await called(campaignId, '+14155556101', Date.now() - 40 * D);
    const cases: [string[], RegExp][] = [
      [['purge', '--company', companyId], /required option '--before <date>' not specified/],
      [['purge', '--before', '2026-01-01'], /required option '--company <id>' not specified/],
      [
        ['purge', '--company', companyId, '--before', 'last month'],
        /--before must be a date \(2026-01-31\) or an ISO 8601 time .*got "last month"/,
      ],
      [['purge', '--company', companyId, '--before', '2026-02-30'], /--before must be a date/],
      [['purge', '--company', companyId, '--before', '2026-01-31T12:00:00'], /--before must be a date/],
      // a day that does not exist, in the date-time form too (Date.parse made it May 1st)
      [['purge', '--company', companyId, '--before', '2026-04-31T00:00:00Z'], /--before must be a date/],
      [['purge', '--company', companyId, '--before', '2999-01-01'], /--before 2999-01-01T00:00:00.000Z is in the future/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    // an unknown company is a failure (1, README), not bad usage
    const missing = await cli(['purge', '--company', 'co_missing', '--before', '2026-01-01']);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringMatching(/company co_missing not found/)]);
    expect(await attemptRows(db, lead)).toHaveLength(1);
  });
});
