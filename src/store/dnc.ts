/**
 * The dnc table (migration 0011): each company's do-not-call list. Numbers
 * added append one `dnc.added` event row in the same transaction. The same
 * Kysely statements serve both databases; the claim's anti-join against this
 * table lives with the claim statements (sqlite/queue.ts, postgres/queue.ts).
 */
import type { Executor } from '../db/index.js';
import type { DncTable } from '../db/schema.js';
import type { EventStore } from './events.js';

export type DncSource = DncTable['source'];

export interface DncEntry {
  phoneNumber: string;
  addedAt: number;
  source: DncSource;
  reason: string | null;
}

/** SQLite's default limit on bound parameters is well above this; PostgreSQL's is 65,535 */
const CHUNK = 1000;

const entry = (r: Pick<DncTable, 'phone_number' | 'added_at' | 'source' | 'reason'>): DncEntry => ({
  phoneNumber: r.phone_number,
  addedAt: Number(r.added_at),
  source: r.source,
  reason: r.reason,
});

export interface DncStore {
  /** lists the numbers (an entry already there keeps its date, source and reason); the numbers newly listed. Run it in a transaction. */
  add(companyId: string, numbers: readonly string[], o: { source: DncSource; reason: string | null; now: number }): Promise<string[]>;
  /** the numbers taken off the list */
  remove(companyId: string, numbers: readonly string[]): Promise<string[]>;
  get(companyId: string, phoneNumber: string): Promise<DncEntry | undefined>;
  /** the entries after `after` (a phone number; null from the start), in number order */
  page(companyId: string, after: string | null, limit: number): Promise<DncEntry[]>;
  /** of the given (campaign, number) pairs, those whose number is on the campaign's company's list, as `campaignId number` */
  listedFor(pairs: readonly { campaignId: string; phoneNumber: string }[]): Promise<Set<string>>;
  /** how many numbers the company's list holds */
  count(companyId: string): Promise<number>;
}

export class KyselyDncStore implements DncStore {
  constructor(
    private readonly ex: Executor,
    private readonly events: EventStore,
  ) {}

  async add(
    companyId: string,
    numbers: readonly string[],
    o: { source: DncSource; reason: string | null; now: number },
  ): Promise<string[]> {
    const added: string[] = [];
    const unique = [...new Set(numbers)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const rows = unique
        .slice(i, i + CHUNK)
        .map((n) => ({ company_id: companyId, phone_number: n, added_at: o.now, source: o.source, reason: o.reason }));
      const inserted = await this.ex
        .insertInto('dnc')
        .values(rows)
        .onConflict((oc) => oc.columns(['company_id', 'phone_number']).doNothing())
        .returning('phone_number')
        .execute();
      added.push(...inserted.map((r) => r.phone_number));
    }
    const items = added.map((phoneNumber) => ({ phoneNumber, source: o.source, reason: o.reason }));
    await this.events.appendForCompany({ type: 'dnc.added', companyId, items, now: o.now });
    return added;
  }

  async remove(companyId: string, numbers: readonly string[]): Promise<string[]> {
    const removed: string[] = [];
    const unique = [...new Set(numbers)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const rows = await this.ex
        .deleteFrom('dnc')
        .where('company_id', '=', companyId)
        .where('phone_number', 'in', unique.slice(i, i + CHUNK))
        .returning('phone_number')
        .execute();
      removed.push(...rows.map((r) => r.phone_number));
    }
    return removed;
  }

  async get(companyId: string, phoneNumber: string): Promise<DncEntry | undefined> {
    const row = await this.ex
      .selectFrom('dnc')
      .select(['phone_number', 'added_at', 'source', 'reason'])
      .where('company_id', '=', companyId)
      .where('phone_number', '=', phoneNumber)
      .executeTakeFirst();
    return row && entry(row);
  }

  async page(companyId: string, after: string | null, limit: number): Promise<DncEntry[]> {
    let q = this.ex.selectFrom('dnc').select(['phone_number', 'added_at', 'source', 'reason']).where('company_id', '=', companyId);
    if (after !== null) q = q.where('phone_number', '>', after);
    return (await q.orderBy('phone_number').limit(limit).execute()).map(entry);
  }

  async listedFor(pairs: readonly { campaignId: string; phoneNumber: string }[]): Promise<Set<string>> {
    if (pairs.length === 0) return new Set();
    const rows = await this.ex
      .selectFrom('dnc as d')
      .innerJoin('campaigns as c', 'c.company_id', 'd.company_id')
      .select(['c.id as campaign_id', 'd.phone_number'])
      .where('c.id', 'in', [...new Set(pairs.map((p) => p.campaignId))])
      .where('d.phone_number', 'in', [...new Set(pairs.map((p) => p.phoneNumber))])
      .execute();
    return new Set(rows.map((r) => `${r.campaign_id} ${r.phone_number}`));
  }

  async count(companyId: string): Promise<number> {
    const row = await this.ex
      .selectFrom('dnc')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
