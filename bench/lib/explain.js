/**
 * The plan of a statement exactly as leadline sends it: the statement is
 * captured from leadline's own repository function (dist/) through a Kysely
 * whose log hook records SQL and parameters, then EXPLAINed with the driver.
 */
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { openSqliteConnection, openSqliteFile } from '../../dist/db/sqlite-driver.js';

/** runs fn(kysely) against the store and returns every statement it sent */
export async function capture(store, fn) {
  const seen = [];
  const log = (event) => seen.push({ sql: event.query.sql, parameters: event.query.parameters });
  const dialect =
    store.kind === 'postgres'
      ? new PostgresDialect({ pool: new pg.Pool({ connectionString: store.url, max: 1 }) })
      : new SqliteDialect({ database: openSqliteConnection(store.url.slice('sqlite:'.length)) });
  const kysely = new Kysely({ dialect, log });
  try {
    await fn(kysely);
  } finally {
    await kysely.destroy();
  }
  return seen;
}

/** EXPLAIN ANALYZE on PostgreSQL, EXPLAIN QUERY PLAN on SQLite; the plan as text */
export async function explain(store, { sql, parameters }) {
  if (store.kind === 'postgres') {
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      const { rows } = await client.query(`explain (analyze, costs off, timing off, summary off) ${sql}`, parameters);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.end();
    }
  }
  const db = openSqliteFile(store.url.slice('sqlite:'.length), { readonly: true });
  try {
    return db
      .prepare(`explain query plan ${sql}`)
      .all(...parameters)
      .map((r) => r.detail)
      .join('\n');
  } finally {
    db.close();
  }
}
