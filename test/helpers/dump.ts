/**
 * The whole database, read back: every row of every table (the migrations'
 * bookkeeping included), so a test can say where a value is stored. Reads
 * the tables the database itself lists, not the ones the schema types name,
 * so a table added later is dumped too.
 */
import { sql } from 'kysely';
import type { Store } from '../../src/store/index.js';

async function tableNames(db: Store): Promise<string[]> {
  const { rows } =
    db.dialect === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db.kysely)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db.kysely);
  return rows.map((r) => r.name);
}

/** `table.column` for every stored text value that contains `needle` (each with the row's values, to say which) */
export async function whereStored(db: Store, needle: string): Promise<{ at: string; row: Record<string, unknown> }[]> {
  const found: { at: string; row: Record<string, unknown> }[] = [];
  const names = await tableNames(db);
  if (names.length < 10) throw new Error(`only ${names.length} tables found: the dump is not reading the database`);
  for (const table of names) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db.kysely);
    for (const row of rows)
      for (const [column, value] of Object.entries(row)) {
        const text = typeof value === 'string' ? value : value !== null && typeof value === 'object' ? JSON.stringify(value) : '';
        if (text.includes(needle)) found.push({ at: `${table}.${column}`, row });
      }
  }
  return found;
}
