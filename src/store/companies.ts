/** The companies table. The same Kysely statements serve both databases. */
import type { Executor } from '../db/index.js';
import type { CompanyTable } from '../db/schema.js';

export type CompanyRow = CompanyTable;

export interface CompanyStore {
  insert(row: CompanyRow): Promise<void>;
  exists(id: string): Promise<boolean>;
  /** true when the database holds any company at all (a first start seeds a demo otherwise) */
  any(): Promise<boolean>;
  list(): Promise<CompanyRow[]>;
  /** the per-number call caps as stored ('' for none; src/compliance/call-caps.ts) */
  callCaps(id: string): Promise<string>;
  /** false when there is no such company */
  setCallCaps(id: string, caps: string): Promise<boolean>;
}

export class KyselyCompanyStore implements CompanyStore {
  constructor(private readonly ex: Executor) {}

  async insert(row: CompanyRow): Promise<void> {
    await this.ex.insertInto('companies').values(row).execute();
  }

  async exists(id: string): Promise<boolean> {
    return (await this.ex.selectFrom('companies').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  async any(): Promise<boolean> {
    return (await this.ex.selectFrom('companies').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  list(): Promise<CompanyRow[]> {
    return this.ex.selectFrom('companies').select(['id', 'name', 'created_at']).orderBy('created_at').orderBy('id').execute();
  }

  async callCaps(id: string): Promise<string> {
    return (await this.ex.selectFrom('companies').select('call_caps').where('id', '=', id).executeTakeFirst())?.call_caps ?? '';
  }

  async setCallCaps(id: string, caps: string): Promise<boolean> {
    const { numUpdatedRows } = await this.ex.updateTable('companies').set({ call_caps: caps }).where('id', '=', id).executeTakeFirst();
    return numUpdatedRows > 0n;
  }
}
