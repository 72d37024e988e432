/**
 * Row 13: what the do-not-call list costs the claim. The claim reads each
 * due lead with one probe of the list's primary key (docs/compliance.md), so
 * the figure is a claim of 50 leads (in-process, through the dialer's own
 * claimDueFree, each claim given back) for a company whose list holds
 * 1,000,000 numbers, against the same claim for a company whose list is
 * empty, interleaved claim by claim on one database. None of the campaign's
 * leads is listed: the row is the price of looking, paid on every lead read.
 *
 * The per-number call caps are counted right before each call, when its
 * attempt is opened (store/shared/queue.ts numberHeld), not in the claim, so
 * they have a figure of their own in the same row: a claim of 50 followed by
 * the opening of their 50 attempts in one `queue.open` batch (as the dialer's
 * recorder sends them), for the same company (1,000,000 listed numbers) with
 * a call log of 1,000,000 attempts over the last 7 days, with its caps at
 * 3/24h,7/7d against the same with its caps off, interleaved batch by batch.
 * The caps are toggled on the one company between batches, so both sides
 * read the same leads, list and call log. Every lead's number was already
 * called twice by another of the company's campaigns (once 2 h ago, once
 * 3 days ago): under both caps, so every attempt opens and each count is
 * read in full.
 */
import { sql } from 'kysely';
import { createCampaign, createCompany } from '../../dist/campaigns/service.js';
import { parseDatabaseUrl } from '../../dist/config.js';
import { newAttemptId } from '../../dist/dialer/attempts.js';
import { claimDueFree } from '../../dist/dialer/claim.js';
import { openStore } from '../../dist/store/index.js';
import { median } from '../lib/load.js';
import { fmtMs, latencyRow } from '../lib/stats.js';

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

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CAPS = '3/24h,7/7d';

/**
 * The company's call log: `n` closed, counted attempts spread evenly over the
 * last 7 days, four to each of n/4 numbers apart from every lead's, set-based
 * like listNumbers; then two to each of the campaign's numbers (`+1` 6000000000
 * + offset …), 2 h and 3 days ago. All from another campaign of the company:
 * the caps count every campaign's calls.
 */
async function callLog(db, kind, companyId, campaignId, n, offset) {
  const now = Date.now();
  const numbers = Math.max(1, Math.floor(n / 4));
  const history = (count, number, startedAt) => sql`insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt,
      started_at, finished_at, success, outcome, phone_number, worker, state, closed_by, counts)
    select 'at_hist_' || ${count.tag} || '_' || i, 'ld_hist' || (${number}), ${campaignId}, ${companyId}, 1,
      ${startedAt}, ${startedAt} + 30000, 0, 'no-answer', '+1' || (${number}), 'bench-history', 'closed', 'dialer', 1`;
  const series = (count) => (kind === 'postgres' ? sql`from generate_series(1, ${count.n}::int) as i` : sql`from s`);
  const run = async (count, number, startedAt) => {
    const body = sql`${history(count, number, startedAt)} ${series(count)}`;
    if (kind === 'postgres') await body.execute(db.kysely);
    else await sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${count.n}) ${body}`.execute(db.kysely);
  };
  // i-th of n: number 7000000000 + i mod n/4, started (i / n) of 7 days ago
  const big = (v) => sql`cast(${v} as bigint)`;
  await run({ tag: 'log', n }, sql`7000000000 + i % ${numbers}`, sql`${big(now)} - i * ${big(Math.floor((7 * DAY) / n))}`);
  await run({ tag: 'near', n: LEADS }, sql`6000000000 + ${big(offset)} + i - 1`, sql`${big(now - 2 * HOUR)} + i`);
  await run({ tag: 'far', n: LEADS }, sql`6000000000 + ${big(offset)} + i - 1`, sql`${big(now - 3 * DAY)} + i`);
  if (kind === 'postgres') await sql`analyze attempts`.execute(db.kysely);
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
    for (let i = 0; i < S.dncClaims + S.dncWarmClaims; i++) {
      // each side goes first every other time: neither gains from the other's warm caches
      for (const side of i % 2 === 0 ? [0, 1] : [1, 0]) {
        const campaignId = sides[side];
        const t0 = performance.now();
        const { leads } = await claim(db, campaignId);
        const took = performance.now() - t0;
        if (leads.length !== 50) throw new Error(`row 13: a claim took ${leads.length} leads, not 50`);
        if (i >= S.dncWarmClaims) ms[side].push(took); // the first ones warm the statement caches
        for (const lead of leads) await db.queue.release(lead, { now: Date.now() });
      }
    }
    rows.push({
      ...latencyRow(base(13, `claim of 50 with ${S.dncEntries.toLocaleString('en-US')} do-not-call entries`), ms[0], ms[1], 1.3),
      target: '–',
      met: null,
      note: `floor: the same claim for a company whose do-not-call list is empty (in-process claimDueFree, ${LEADS.toLocaleString('en-US')} due leads per campaign, none listed)`,
    });
    await capsRow(ctx, db, listed);
  } finally {
    await db.close();
  }
}

/** row 13's second figure: the claim of 50 and the opening of their attempts, with the company's caps on and off */
async function capsRow(ctx, db, companyId) {
  const { kind, S, base, rows, log } = ctx;
  log(`${kind}: 13 the claim and the opening of 50 attempts with caps ${CAPS}, ${S.capsAttempts.toLocaleString('en-US')} past attempts`);
  const campaignId = await campaignWithLeads(db, companyId, 'bench caps', 2 * LEADS);
  const { campaignId: other } = await createCampaign(db, { companyId, name: 'bench caps history', ...ALWAYS_OPEN });
  const t = Date.now();
  await callLog(db, kind, companyId, other, S.capsAttempts, 2 * LEADS);
  log(`${kind}: seeded the call log in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const sides = [CAPS, ''];
  const ms = [[], []];
  const openMs = [[], []];
  try {
    for (let i = 0; i < S.dncClaims + S.dncWarmClaims; i++) {
      for (const side of i % 2 === 0 ? [0, 1] : [1, 0]) {
        // untimed: the dialer reads the caps from the company row at each open, so the toggle is seen at once
        await db.companies.setCallCaps(companyId, sides[side]);
        const t0 = performance.now();
        const { leads } = await claim(db, campaignId);
        const t1 = performance.now();
        const now = Date.now();
        const openings = leads.map((lead) => ({
          attemptId: newAttemptId(),
          lead,
          phoneNumber: lead.phoneNumber,
          startedAt: now,
          deadlineAt: now + 30 * 60_000,
        }));
        const opened = await db.queue.open(openings, now);
        const t2 = performance.now();
        if (leads.length !== 50) throw new Error(`row 13: a claim took ${leads.length} leads, not 50`);
        const refused = opened.filter((r) => r !== 'opened');
        if (refused.length > 0) throw new Error(`row 13: ${refused.length} of 50 attempts not opened (${refused[0]})`);
        if (i >= S.dncWarmClaims) {
          ms[side].push(t2 - t0);
          openMs[side].push(t2 - t1);
        }
        // Nothing was placed: the attempts go (so the call log, and each number's count, stay as seeded)
        // and the claims are given back as the DNC figure's are, so the next batch reads the same leads.
        await sql`delete from attempts where attempt_id in (${sql.join(openings.map((o) => o.attemptId))})`.execute(db.kysely);
        for (const lead of leads) await db.queue.release(lead, { now: Date.now() });
      }
    }
  } finally {
    await db.companies.setCallCaps(companyId, '');
  }
  rows.push({
    ...latencyRow(base(13, `claim of 50 and opening their attempts, call caps ${CAPS}`), ms[0], ms[1], 1.3),
    target: '–',
    met: null,
    note: `floor: the same claim and opening with the company's caps off; both with ${S.dncEntries.toLocaleString('en-US')} do-not-call entries and ${S.capsAttempts.toLocaleString('en-US')} past attempts over 7 days, each lead's number called twice before (2 h, 3 d ago); the opening alone: ${fmtMs(median(openMs[0]))} caps on, ${fmtMs(median(openMs[1]))} caps off`,
  });
}
