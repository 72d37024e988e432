/**
 * Row 13: what the do-not-call list costs the claim. The claim reads each
 * due lead with one probe of the list's primary key (docs/compliance.md), so
 * the figure is a claim of 50 leads (in-process, through the dialer's own
 * claimDueFree, each claim given back) for a company whose list holds
 * 1,000,000 numbers, against the same claim for a company whose list is
 * empty, interleaved claim by claim on one database. None of the campaign's
 * leads is listed: the row is the price of looking, paid on every lead read.
 * The per-number call caps are counted right before each call, not in the
 * claim, so they are not in this figure.
 */
import { sql } from 'kysely';
import { createCampaign, createCompany } from '../../dist/campaigns/service.js';
import { parseDatabaseUrl } from '../../dist/config.js';
import { claimDueFree } from '../../dist/dialer/claim.js';
import { openStore } from '../../dist/store/index.js';
import { latencyRow } from '../lib/stats.js';

const ALWAYS_OPEN = { hours: 'mon-sun 00:00-24:00', local_window: '00:00-24:00', regional_rules: 'off' };
const LEADS = 2000;

/** n numbers on the company's list, set-based, none of them a lead's */
async function listNumbers(db, kind, companyId, n) {
  const now = Date.now();
  if (kind === 'postgres') {
    await sql`insert into dnc (company_id, phone_number, added_at, source, reason)
      select ${companyId}, '+1' || (5000000000 + i), ${now}::bigint, 'import', null from generate_series(1, ${n}::int) as i`.execute(
      db.kysely,
    );
    await sql`analyze dnc`.execute(db.kysely);
  } else {
    await sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${n})
      insert into dnc (company_id, phone_number, added_at, source, reason)
      select ${companyId}, '+1' || (5000000000 + i), ${now}, 'import', null from s`.execute(db.kysely);
  }
}

/** a campaign of LEADS due leads, numbered apart from every other campaign's */
async function campaignWithLeads(db, companyId, name, offset) {
  const { campaignId } = await createCampaign(db, { companyId, name, ...ALWAYS_OPEN });
  const now = Date.now();
  await db.writeTx(async (tx) => {
    for (let at = 0; at < LEADS; at += 500) {
      const rows = Array.from({ length: 500 }, (_, j) => {
        const i = offset + at + j;
        return {
          id: `ld_dnc${String(i).padStart(16, '0')}`,
          campaign_id: campaignId,
          phone_number: `+1${6000000000 + i}`,
          external_id: `dnc-${i}`,
          metadata: '{}',
          status: 'raw',
          priority: 0,
          attempts: 0,
          created_at: now + i,
        };
      });
      await tx.insertInto('leads').values(rows).execute();
    }
  });
  return campaignId;
}

const claim = (db, campaignId) =>
  claimDueFree(db, { campaignId, maxAttempts: 3, workerId: 'bench-dnc', limit: 50, concurrency: 50, now: Date.now(), leaseMs: 60_000 });

export async function dncRow(ctx) {
  const { kind, S, store, base, rows, log } = ctx;
  log(`${kind}: 13 the claim with ${S.dncEntries.toLocaleString('en-US')} do-not-call entries`);
  const db = openStore(parseDatabaseUrl(store.url), { pgPoolSize: 1, pgStatementTimeoutMs: 600_000 });
  try {
    const listed = (await createCompany(db, 'Bench listed')).companyId;
    const clean = (await createCompany(db, 'Bench clean')).companyId;
    await listNumbers(db, kind, listed, S.dncEntries);
    const sides = [
      await campaignWithLeads(db, listed, 'bench dnc listed', 0),
      await campaignWithLeads(db, clean, 'bench dnc clean', LEADS),
    ];
    const ms = [[], []];
    for (let i = 0; i < S.dncClaims + 3; i++) {
      // each side goes first every other time: neither gains from the other's warm caches
      for (const side of i % 2 === 0 ? [0, 1] : [1, 0]) {
        const campaignId = sides[side];
        const t0 = performance.now();
        const { leads } = await claim(db, campaignId);
        const took = performance.now() - t0;
        if (leads.length !== 50) throw new Error(`row 13: a claim took ${leads.length} leads, not 50`);
        if (i >= 3) ms[side].push(took); // the first three warm the statement caches
        for (const lead of leads) await db.queue.release(lead, { now: Date.now() });
      }
    }
    rows.push({
      ...latencyRow(base(13, `claim of 50 with ${S.dncEntries.toLocaleString('en-US')} do-not-call entries`), ms[0], ms[1], 1.3),
      target: '–',
      met: null,
      note: `floor: the same claim for a company whose do-not-call list is empty (in-process claimDueFree, ${LEADS.toLocaleString('en-US')} due leads per campaign, none listed)`,
    });
  } finally {
    await db.close();
  }
}
