/** Reads of the attempts table (the call log). The same Kysely statements serve both databases. */
import { sql } from 'kysely';
import type { Executor } from '../db/index.js';
import type { AttemptTable } from '../db/schema.js';
import type { Digester } from './digests.js';
import { openBefore, type PurgedChunk, purgeAttempts } from './retention.js';

export type AttemptRow = Omit<AttemptTable, 'id'> & { id: number };

export interface CallCount {
  campaignId: string;
  calls: number;
  successes: number;
}

/** one hour's attempts with one outcome (null: still open) */
export interface HourlyCalls {
  /** the hour, as started_at / 3,600,000 rounded down */
  hour: number;
  outcome: string | null;
  calls: number;
  /** over the closed attempts: their count and summed time from start to close */
  closed: number;
  closedMs: number;
  /** over the attempts with a reported call duration */
  timed: number;
  durationSeconds: number;
}

export interface AttemptStore {
  /** attempts started at or after `since`, per hour and outcome (a range of attempts_campaign_started per campaign) */
  hourly(campaignIds: readonly string[], since: number): Promise<HourlyCalls[]>;
  /** per campaign: attempts started at or after `since` (a range of attempts_campaign_started) */
  callsSince(campaignIds: readonly string[], since: number): Promise<CallCount[]>;
  /** the latest `limit` attempts across the campaigns, newest first */
  latest(campaignIds: readonly string[], limit: number): Promise<AttemptRow[]>;
  /** one lead's attempts, the latest first */
  ofLead(campaignId: string, leadId: string): Promise<AttemptRow[]>;
  /** who an attempt belongs to, and how it closed (undefined when there is none) */
  byAttemptId(attemptId: string): Promise<
    | {
        companyId: string;
        campaignId: string;
        state: AttemptTable['state'];
        closedBy: AttemptTable['closed_by'];
        /** the number dialled; null when the predial lookup failed */
        phoneNumber: string | null;
      }
    | undefined
  >;
  /** whether the attempt called `phoneNumber`: its number, or, once that was removed (its lead deleted), the number's digest */
  called(attemptId: string, phoneNumber: string): Promise<boolean>;
  /** the attempt of a platform's call (its id is stored when the create-call answers), among the campaigns calling through that provider */
  byProviderCallId(provider: string, providerCallId: string): Promise<{ attemptId: string; campaignId: string } | undefined>;
  /**
   * when calls to the number were placed (in any of the company's campaigns) since `since`: attempts that count, open ones too,
   * and those whose number was removed since (a deleted lead's, purged) by its digest
   */
  placedTo(companyId: string, phoneNumber: string, since: number): Promise<number[]>;
  /** placedTo for several numbers of the company, by number */
  placedToMany(companyId: string, phoneNumbers: readonly string[], since: number): Promise<Map<string, number[]>>;
  /** one chunk of `leadline purge` (retention.ts); run it in a transaction until it changes nothing */
  purge(o: { companyId: string; before: number; countedSince: number | null; limit: number }): Promise<PurgedChunk>;
  /** the company's attempts started before `before` that are still open (calls in progress, which a purge leaves) */
  openBefore(companyId: string, before: number): Promise<number>;
}

const numeric = (r: AttemptRow): AttemptRow => ({
  ...r,
  id: Number(r.id),
  started_at: Number(r.started_at),
  finished_at: Number(r.finished_at),
});

export class KyselyAttemptStore implements AttemptStore {
  constructor(
    private readonly ex: Executor,
    private readonly digest: Digester,
  ) {}

  /** two probes, one per index (attempts_company_phone, attempts_company_digest): an attempt has its number or its digest, never both */
  async placedTo(companyId: string, phoneNumber: string, since: number): Promise<number[]> {
    return (await this.placedToMany(companyId, [phoneNumber], since)).get(phoneNumber) ?? [];
  }

  /**
   * placedTo for several numbers of a company at once: one statement by
   * number and one by digest for the whole batch (a pair per number was most
   * of what the caps cost an attempt batch: bench row 13).
   */
  async placedToMany(companyId: string, phoneNumbers: readonly string[], since: number): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>(phoneNumbers.map((n) => [n, []]));
    if (phoneNumbers.length === 0) return out;
    const byDigest = new Map<string, string>();
    for (const n of out.keys()) byDigest.set(await this.digest(companyId, n), n);
    const placed = (column: 'phone_number' | 'phone_digest', values: string[]) =>
      this.ex
        .selectFrom('attempts')
        .select([`${column} as key`, 'started_at'])
        .where('company_id', '=', companyId)
        .where(column, 'in', values)
        .where('started_at', '>', since)
        .where('counts', '=', 1)
        .execute();
    for (const r of await placed('phone_number', [...out.keys()])) out.get(r.key!)?.push(Number(r.started_at));
    for (const r of await placed('phone_digest', [...byDigest.keys()])) out.get(byDigest.get(r.key!)!)?.push(Number(r.started_at));
    return out;
  }

  purge(o: { companyId: string; before: number; countedSince: number | null; limit: number }): Promise<PurgedChunk> {
    return purgeAttempts(this.ex, this.digest, o);
  }

  openBefore(companyId: string, before: number): Promise<number> {
    return openBefore(this.ex, companyId, before);
  }

  async byAttemptId(attemptId: string) {
    const row = await this.ex
      .selectFrom('attempts')
      .select(['company_id', 'campaign_id', 'state', 'closed_by', 'phone_number'])
      .where('attempt_id', '=', attemptId)
      .executeTakeFirst();
    return (
      row && {
        companyId: row.company_id,
        campaignId: row.campaign_id,
        state: row.state,
        closedBy: row.closed_by,
        phoneNumber: row.phone_number,
      }
    );
  }

  async called(attemptId: string, phoneNumber: string): Promise<boolean> {
    const row = await this.ex
      .selectFrom('attempts')
      .select(['company_id', 'phone_number', 'phone_digest'])
      .where('attempt_id', '=', attemptId)
      .executeTakeFirst();
    if (!row) return false;
    if (row.phone_number !== null) return row.phone_number === phoneNumber;
    return row.phone_digest !== null && row.phone_digest === (await this.digest(row.company_id, phoneNumber));
  }

  async byProviderCallId(provider: string, providerCallId: string) {
    const row = await this.ex
      .selectFrom('attempts')
      .innerJoin('campaigns', 'campaigns.id', 'attempts.campaign_id')
      .select(['attempts.attempt_id', 'attempts.campaign_id'])
      .where('attempts.provider_call_id', '=', providerCallId)
      .where('campaigns.provider', '=', provider)
      .orderBy('attempts.started_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && { attemptId: row.attempt_id, campaignId: row.campaign_id };
  }

  async hourly(campaignIds: readonly string[], since: number): Promise<HourlyCalls[]> {
    if (campaignIds.length === 0) return [];
    // integer division on both databases (bigint in PostgreSQL, integer in SQLite)
    const hour = sql<number>`started_at / 3600000`;
    const rows = await this.ex
      .selectFrom('attempts')
      .select((eb) => [
        hour.as('hour'),
        'outcome',
        eb.fn.countAll<number>().as('calls'),
        eb.fn.count<number>('finished_at').as('closed'),
        sql<number>`sum(finished_at - started_at)`.as('closed_ms'),
        eb.fn.count<number>('duration_seconds').as('timed'),
        eb.fn.sum<number>('duration_seconds').as('duration_seconds'),
      ])
      .where('campaign_id', 'in', campaignIds)
      .where('started_at', '>=', since)
      .groupBy([hour, 'outcome'])
      .execute();
    return rows.map((r) => ({
      hour: Number(r.hour),
      outcome: r.outcome,
      calls: Number(r.calls),
      closed: Number(r.closed),
      closedMs: Number(r.closed_ms ?? 0),
      timed: Number(r.timed),
      durationSeconds: Number(r.duration_seconds ?? 0),
    }));
  }

  async callsSince(campaignIds: readonly string[], since: number): Promise<CallCount[]> {
    if (campaignIds.length === 0) return [];
    const rows = await this.ex
      .selectFrom('attempts')
      .select((eb) => ['campaign_id', eb.fn.countAll<number>().as('calls'), eb.fn.sum<number>('success').as('successes')])
      .where('campaign_id', 'in', campaignIds)
      .where('started_at', '>=', since)
      .groupBy('campaign_id')
      .execute();
    return rows.map((r) => ({ campaignId: r.campaign_id, calls: Number(r.calls), successes: Number(r.successes ?? 0) }));
  }

  /** `limit` per campaign from the index, merged here, so the cost does not grow with the campaigns' history */
  async latest(campaignIds: readonly string[], limit: number): Promise<AttemptRow[]> {
    const perCampaign = await Promise.all(
      campaignIds.map((id) =>
        this.ex
          .selectFrom('attempts')
          .selectAll()
          .where('campaign_id', '=', id)
          .orderBy('started_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .execute(),
      ),
    );
    return perCampaign
      .flat()
      .map(numeric)
      .sort((a, b) => b.started_at - a.started_at || b.id - a.id)
      .slice(0, limit);
  }

  async ofLead(campaignId: string, leadId: string): Promise<AttemptRow[]> {
    const rows = await this.ex
      .selectFrom('attempts')
      .selectAll()
      .where('lead_id', '=', leadId)
      .where('campaign_id', '=', campaignId)
      .orderBy('attempt', 'desc')
      .execute();
    return rows.map(numeric);
  }
}
