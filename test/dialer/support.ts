/** Campaigns and leads written straight to the database, for dialer tests. */
import { expect } from 'vitest';
import { sql } from 'kysely';
import pino from 'pino';
import { createCampaign, createCompany, type CampaignSettings } from '../../src/campaigns/service.js';
import type { Store } from '../../src/store/index.js';
import { newIds } from '../../src/ids.js';
import { Dialer } from '../../src/dialer/worker.js';

export interface SeedLead {
  phoneNumber?: string | null;
  externalId?: string | null;
  priority?: number;
  scheduledFor?: string | null;
  metadata?: object;
  createdAt?: number;
}

export async function makeCampaign(db: Store, settings: CampaignSettings = {}): Promise<string> {
  const { companyId } = await createCompany(db, 'Dialer Co');
  const { campaignId } = await createCampaign(db, {
    companyId,
    name: 'Dialer',
    hours: 'mon-sun 00:00-24:00',
    local_window: '00:00-24:00',
    regional_rules: 'off',
    ...settings,
  });
  return campaignId;
}

/**
 * A campaign written with the columns every schema since migration 0001 has,
 * for tests that build a database as an older version left it
 * (createCampaign writes every column of today's schema).
 */
export async function oldSchemaCampaign(db: Store, id = `cp_old_${Math.random().toString(36).slice(2, 10)}`): Promise<string> {
  const companyId = `co_${id}`;
  await db.kysely.insertInto('companies').values({ id: companyId, name: 'Dialer Co', created_at: 0 }).execute();
  await db.kysely
    .insertInto('campaigns')
    .values({
      id,
      company_id: companyId,
      name: 'Dialer',
      hours: 'mon-sun 00:00-24:00',
      local_window: '00:00-24:00',
      created_at: 0,
    } as never)
    .execute();
  return id;
}

let numbers = 0;

/** inserts in array order (so seq, the creation order, follows it); returns the ids */
export async function seedLeads(db: Store, campaignId: string, leads: SeedLead[], createdAt = Date.now()): Promise<string[]> {
  const ids = newIds('ld_', leads.length);
  for (let i = 0; i < leads.length; i += 500) {
    await db.kysely
      .insertInto('leads')
      .values(
        leads.slice(i, i + 500).map((l, j) => ({
          id: ids[i + j]!,
          campaign_id: campaignId,
          phone_number: l.phoneNumber === undefined ? `+1415${String(5_000_000 + numbers++)}` : l.phoneNumber,
          external_id: l.externalId ?? null,
          metadata: JSON.stringify(l.metadata ?? {}),
          status: 'raw' as const,
          scheduled_for: l.scheduledFor ?? null,
          priority: l.priority ?? 0,
          attempts: 0,
          created_at: l.createdAt ?? createdAt,
        })),
      )
      .execute();
  }
  return ids;
}

/** n leads with distinct numbers, inserted by the database itself (fast for 10,000s) */
export async function seedMany(db: Store, campaignId: string, n: number, createdAt = Date.now()): Promise<void> {
  if (db.dialect === 'postgres') {
    await sql`insert into leads (id, campaign_id, phone_number, metadata, status, priority, attempts, created_at)
      select 'ld_' || ${campaignId}::text || '_' || g, ${campaignId}, '+1415' || lpad(g::text, 7, '0'), '{}', 'raw', 0, 0, ${createdAt}::bigint
      from generate_series(1, ${n}::int) g`.execute(db.kysely);
  } else {
    await sql`with recursive g(i) as (select 1 union all select i + 1 from g where i < ${n})
      insert into leads (id, campaign_id, phone_number, metadata, status, priority, attempts, created_at)
      select 'ld_' || ${campaignId} || '_' || i, ${campaignId}, '+1415' || printf('%07d', i), '{}', 'raw', 0, 0, ${createdAt} from g`.execute(
      db.kysely,
    );
  }
}

/**
 * A campaign of 20,000 leads beside another of 5,000, its company's do-not-call
 * list of 20,000 numbers, all analyzed: the data the claim's plans are read on
 * (claim-plan.test.ts, prepared-statements.test.ts). Answers the big campaign.
 */
export async function seedPlanCampaign(db: Store): Promise<string> {
  const campaignId = await makeCampaign(db);
  await seedMany(db, campaignId, 20_000);
  await seedMany(db, await makeCampaign(db), 5_000);
  const { company_id } = (await db.campaigns.byId(campaignId))!;
  const listed = Array.from({ length: 20_000 }, (_, i) => `+1646${String(i).padStart(7, '0')}`);
  await db.transaction((tx) => tx.dnc.add(company_id, listed, { source: 'import', reason: null, now: 0 }));
  await sql`analyze`.execute(db.kysely);
  return campaignId;
}

export async function leadRow(db: Store, id: string) {
  return db.kysely.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * A lead given back by a call the platform never placed: as the claim found it (raw here), no
 * attempt spent, nobody holding it, and due again after the first backoff of a refusal at dial
 * time (30 s ±20%) from `closedAt`, the clock of whatever closed the attempt.
 */
export async function expectHeldBackNotPlaced(db: Store, leadId: string, closedAt: number) {
  const lead = await leadRow(db, leadId);
  expect(lead).toMatchObject({ status: 'raw', attempts: 0, claimed_by: null });
  const dueIn = Date.parse(lead!.next_attempt_at!) - closedAt;
  expect(dueIn).toBeGreaterThanOrEqual(24_000);
  expect(dueIn).toBeLessThanOrEqual(36_000);
}

export async function attemptRows(db: Store, leadId: string) {
  return db.kysely.selectFrom('attempts').selectAll().where('lead_id', '=', leadId).orderBy('attempt').execute();
}

/** a dialer for one campaign with its clock stopped at `now`: simulated calls end at once, and succeed (random 0) */
export const dialerAt = (db: Store, campaignId: string, now: number): Dialer =>
  new Dialer({
    store: db,
    logger: pino({ level: 'silent' }),
    campaignIds: [campaignId],
    now: () => now,
    random: () => 0,
    simulateDurationMs: [0, 0],
  });
