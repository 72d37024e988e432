/** The campaigns table. The same Kysely statements serve both databases. */
import type { Executor } from '../db/index.js';
import type { CampaignTable } from '../db/schema.js';

export type CampaignRow = CampaignTable;
/** the columns a campaign's settings live in (everything but its identity) */
export type CampaignValues = Partial<Omit<CampaignRow, 'id' | 'company_id' | 'created_at'>>;

export interface CampaignStore {
  byId(id: string): Promise<CampaignRow | undefined>;
  /** the company's campaigns, oldest first */
  ofCompany(companyId: string): Promise<CampaignRow[]>;
  /** the given campaigns (null: every campaign), oldest first */
  list(ids: readonly string[] | null): Promise<CampaignRow[]>;
  insert(row: CampaignRow): Promise<void>;
  update(id: string, values: CampaignValues): Promise<void>;
}

export class KyselyCampaignStore implements CampaignStore {
  constructor(private readonly ex: Executor) {}

  byId(id: string): Promise<CampaignRow | undefined> {
    return this.ex.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst();
  }

  ofCompany(companyId: string): Promise<CampaignRow[]> {
    return this.ex.selectFrom('campaigns').selectAll().where('company_id', '=', companyId).orderBy('created_at').orderBy('id').execute();
  }

  list(ids: readonly string[] | null): Promise<CampaignRow[]> {
    let q = this.ex.selectFrom('campaigns').selectAll().orderBy('created_at').orderBy('id');
    if (ids) q = q.where('id', 'in', ids.length > 0 ? ids : ['']);
    return q.execute();
  }

  async insert(row: CampaignRow): Promise<void> {
    await this.ex.insertInto('campaigns').values(row).execute();
  }

  async update(id: string, values: CampaignValues): Promise<void> {
    if (Object.keys(values).length > 0) await this.ex.updateTable('campaigns').set(values).where('id', '=', id).execute();
  }
}
