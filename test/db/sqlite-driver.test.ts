/**
 * The embedded SQLite driver (src/db/sqlite-driver.ts): the one this Node
 * gets, what leadline needs of it through Kysely, and that it survives the
 * garbage collections that abort better-sqlite3 12 on Node 24.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteConnection, SPILL_PAGES, sqliteDriver, sqliteDriverFor, WAL_SIZE_LIMIT } from '../../src/db/sqlite-driver.js';
import { isUnavailable } from '../../src/http/errors.js';

const require = createRequire(import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'leadline-driver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SQLite driver', () => {
  it('is better-sqlite3 13 on Node-API 10 (Node >= 22.14, 24) and 12 below it (Node 20, 22.0-22.13)', () => {
    expect(sqliteDriverFor(9)).toBe('better-sqlite3@12');
    expect(sqliteDriverFor(10)).toBe('better-sqlite3@13');
    expect(sqliteDriver).toBe(sqliteDriverFor(Number(process.versions.napi)));
    if (process.versions.node.startsWith('20.')) expect(sqliteDriver).toBe('better-sqlite3@12');
    if (Number(process.versions.node.split('.')[0]) >= 24) expect(sqliteDriver).toBe('better-sqlite3@13');
  });

  it('survives statements freed by collections that run outside JavaScript (better-sqlite3 12 aborts there on Node 24)', async () => {
    const pkg = dirname(require.resolve(`${sqliteDriver === 'better-sqlite3@13' ? 'better-sqlite3-13' : 'better-sqlite3'}/package.json`));
    const script = fileURLToPath(new URL('../helpers/statement-gc.cjs', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [script, pkg, '30']);
    expect(stdout).toContain('survived 30 rounds');
  });

  it('opens the file with WAL, synchronous=NORMAL, busy_timeout, foreign keys, a late cache spill and a WAL size limit', () => {
    const db = openSqliteConnection(join(dir, 'pragmas.db'));
    try {
      expect(db.driver).toBe(sqliteDriver);
      expect(db.raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.raw.pragma('synchronous', { simple: true })).toBe(1);
      expect(db.raw.pragma('busy_timeout', { simple: true })).toBe(5000);
      expect(db.raw.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.raw.pragma('cache_spill', { simple: true })).toBe(SPILL_PAGES);
      expect(db.raw.pragma('journal_size_limit', { simple: true })).toBe(WAL_SIZE_LIMIT);
      // leadline's statements (src/store/sqlite/leads.ts) are written for a STAT4 build
      expect(db.raw.pragma('compile_options', { simple: false })).toContainEqual({ compile_options: 'ENABLE_STAT4' });
    } finally {
      db.close();
    }
  });

  it('gives the WAL file back down to its limit after a burst larger than it', () => {
    const path = join(dir, 'wal-limit.db');
    const db = openSqliteConnection(path);
    try {
      db.raw.exec('create table t (b blob)');
      // one burst larger than the limit: its commit checkpoints it into the database file
      db.raw.prepare('insert into t values (zeroblob(?))').run(WAL_SIZE_LIMIT + 16 * 1024 * 1024);
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(WAL_SIZE_LIMIT);
      // the next write starts the WAL over, and its commit cuts the file back
      db.raw.prepare('insert into t values (1)').run();
      expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
    } finally {
      db.close();
    }
  });

  it('reuses a prepared statement by its SQL text', () => {
    const db = openSqliteConnection(join(dir, 'cache.db'));
    try {
      expect(db.prepare('select 1')).toBe(db.prepare('select 1'));
      expect(db.prepare('select 2')).not.toBe(db.prepare('select 1'));
    } finally {
      db.close();
    }
  });

  it('runs what leadline sends through Kysely: writes, RETURNING, json_each, reads and streamed reads', async () => {
    const kysely = new Kysely<any>({ dialect: new SqliteDialect({ database: openSqliteConnection(join(dir, 'kysely.db')) }) });
    try {
      await sql`create table t (id integer primary key, v text unique)`.execute(kysely);
      const write = await sql`insert into t (v) values (${'a'})`.execute(kysely);
      expect(write.numAffectedRows).toBe(1n);
      expect(write.insertId).toBe(1n);
      const json = JSON.stringify(['b', 'a', 'c']);
      const inserted = await sql<{ v: string }>`
        insert into t (v) select value from json_each(${json}) where true order by key
        on conflict do nothing returning v`.execute(kysely);
      expect(inserted.rows).toEqual([{ v: 'b' }, { v: 'c' }]);
      const { rows } = await sql<{ id: number; v: string }>`select id, v from t order by id`.execute(kysely);
      expect(rows).toEqual([
        { id: 1, v: 'a' },
        { id: 2, v: 'b' },
        { id: 3, v: 'c' },
      ]);
      const streamed: unknown[] = [];
      for await (const row of kysely.selectFrom('t').select('v').orderBy('id').stream()) streamed.push(row);
      expect(streamed).toEqual([{ v: 'a' }, { v: 'b' }, { v: 'c' }]);
    } finally {
      await kysely.destroy();
    }
  });

  it('reports a locked database as SQLITE_BUSY, which the API answers with 503', () => {
    const path = join(dir, 'busy.db');
    const holder = openSqliteConnection(path);
    const other = openSqliteConnection(path);
    try {
      holder.raw.exec('create table t (v text)');
      holder.raw.exec('begin immediate');
      other.raw.pragma('busy_timeout = 0');
      let error: unknown;
      try {
        other.raw.exec("insert into t values ('x')");
      } catch (err) {
        error = err;
      }
      expect((error as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(isUnavailable(error)).toBe(true);
    } finally {
      holder.raw.exec('rollback');
      holder.close();
      other.close();
    }
  });
});
