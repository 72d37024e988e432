/** zone_sets on PostgreSQL */
import { sql } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { ZoneStore } from '../zones.js';

export class PostgresZoneStore implements ZoneStore {
  constructor(private readonly ex: Executor) {}

  async ids(keys: readonly string[]): Promise<Map<string, number>> {
    const unique = [...new Set(keys)];
    const ids = new Map<string, number>();
    if (unique.length === 0) return ids;
    await sql`insert into zone_sets (zones) select unnest(${unique}::text[]) on conflict (zones) do nothing`.execute(this.ex);
    const { rows } = await sql<{ id: number; zones: string }>`select id, zones from zone_sets where zones = any(${unique}::text[])`.execute(
      this.ex,
    );
    for (const r of rows) ids.set(r.zones, Number(r.id));
    return ids;
  }

  async all(): Promise<{ id: number; zones: string }[]> {
    const rows = await this.ex.selectFrom('zone_sets').select(['id', 'zones']).execute();
    return rows.map((r) => ({ id: Number(r.id), zones: r.zones }));
  }
}
