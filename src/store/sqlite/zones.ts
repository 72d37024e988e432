/** zone_sets on SQLite */
import { sql } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { ZoneStore } from '../zones.js';

export class SqliteZoneStore implements ZoneStore {
  constructor(private readonly ex: Executor) {}

  async ids(keys: readonly string[]): Promise<Map<string, number>> {
    const unique = [...new Set(keys)];
    const ids = new Map<string, number>();
    if (unique.length === 0) return ids;
    const json = JSON.stringify(unique);
    await sql`insert or ignore into zone_sets (zones) select value from json_each(${json})`.execute(this.ex);
    const { rows } = await sql<{ id: number; zones: string }>`select id, zones from zone_sets
      where zones in (select value from json_each(${json}))`.execute(this.ex);
    for (const r of rows) ids.set(r.zones, Number(r.id));
    return ids;
  }

  async all(): Promise<{ id: number; zones: string }[]> {
    const rows = await this.ex.selectFrom('zone_sets').select(['id', 'zones']).execute();
    return rows.map((r) => ({ id: Number(r.id), zones: r.zones }));
  }
}
