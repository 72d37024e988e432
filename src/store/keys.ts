/** The api_keys table. The same Kysely statements serve both databases. */
import type { Executor } from '../db/index.js';
import type { ApiKeyTable } from '../db/schema.js';

export type KeyRow = ApiKeyTable;
/** a key as the operator sees it: never its hash */
export type KeyListing = Omit<KeyRow, 'key_hash' | 'company_id'>;

export interface KeyStore {
  byHash(hash: string): Promise<KeyRow | undefined>;
  insert(row: KeyRow): Promise<void>;
  /** the company's keys, oldest first */
  ofCompany(companyId: string): Promise<KeyListing[]>;
  /** how many of the company's keys are not revoked */
  activeCount(companyId: string): Promise<number>;
  /** true when the key existed and was active */
  revoke(id: string, now: number): Promise<boolean>;
  touch(id: string, now: number): Promise<void>;
}

export class KyselyKeyStore implements KeyStore {
  constructor(private readonly ex: Executor) {}

  byHash(hash: string): Promise<KeyRow | undefined> {
    return this.ex.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
  }

  async insert(row: KeyRow): Promise<void> {
    await this.ex.insertInto('api_keys').values(row).execute();
  }

  ofCompany(companyId: string): Promise<KeyListing[]> {
    return this.ex
      .selectFrom('api_keys')
      .select(['id', 'name', 'scope', 'campaign_id', 'created_at', 'last_used_at', 'revoked_at'])
      .where('company_id', '=', companyId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  async activeCount(companyId: string): Promise<number> {
    const row = await this.ex
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', companyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async revoke(id: string, now: number): Promise<boolean> {
    const result = await this.ex
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async touch(id: string, now: number): Promise<void> {
    await this.ex.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
  }
}
