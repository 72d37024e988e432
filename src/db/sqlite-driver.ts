/**
 * The embedded SQLite driver, picked once at start from the running Node
 * (docs/runtimes.md has the measurements behind the choice):
 *
 * - Node-API 10 (Node >= 22.14, 23.6, 24): better-sqlite3 13, installed as the
 *   npm alias `better-sqlite3-13`. It is a Node-API addon whose package carries
 *   prebuilt binaries, so nothing is compiled. Below Node-API 10 (Node 20,
 *   22.0-22.13) its binary crashes the process as it loads (a segmentation
 *   fault), so it is never loaded there; npm skips it on Node 20 (an optional
 *   dependency whose `engines` do not match).
 * - Below Node-API 10: better-sqlite3 12. It subclasses node::ObjectWrap,
 *   which Node 24 changed: a garbage collection that runs outside JavaScript
 *   frees a statement and aborts the process (`Assertion failed: (env) !=
 *   nullptr`; test/helpers/statement-gc.cjs reproduces it), so it is never
 *   loaded where Node-API 10 is.
 *
 * Both are the same library with the same API, SQLite build options (STAT4
 * included, which src/store/sqlite/leads.ts writes its statements around) and
 * error codes (`SQLITE_BUSY` is a 503, src/http/errors.ts), and Kysely's own
 * SqliteDialect drives either as it is. Node's built-in `node:sqlite` was
 * measured too (bench/diag/sqlite-drivers.js) and is not used: no faster (the
 * 8000-lead page 4% slower), no STAT4, its SQLite fixed by the Node release,
 * and Kysely would need an adapter for it.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

type SqliteDriver = 'better-sqlite3@12' | 'better-sqlite3@13';

const PACKAGES: Record<SqliteDriver, string> = {
  'better-sqlite3@12': 'better-sqlite3',
  'better-sqlite3@13': 'better-sqlite3-13',
};

/** the driver for a Node that supports Node-API `napi` (process.versions.napi) */
export function sqliteDriverFor(napi: number): SqliteDriver {
  return napi >= 10 ? 'better-sqlite3@13' : 'better-sqlite3@12';
}

/** the driver this process uses */
export const sqliteDriver: SqliteDriver = sqliteDriverFor(Number(process.versions.napi));

const require = createRequire(import.meta.url);

const HOW_TO_FIX: Record<SqliteDriver, string> = {
  'better-sqlite3@13':
    'run `npm install` with this Node. npm skips this optional dependency when it installs with an older Node, ' +
    'and drops it when its install step fails: npm runs node-gyp on it, which needs python3, make and the Node headers ' +
    'even though nothing is compiled (docs/runtimes.md)',
  'better-sqlite3@12':
    'run `npm rebuild better-sqlite3` with this Node. It compiles from source, with python3, make and g++, ' +
    'when no prebuilt binary can be downloaded (docs/runtimes.md)',
};

let loaded: typeof BetterSqlite3 | undefined;
function load(driver: SqliteDriver): typeof BetterSqlite3 {
  if (loaded) return loaded;
  try {
    const Database = require(PACKAGES[driver]) as typeof BetterSqlite3;
    // better-sqlite3 loads its binary with the first database it opens
    new Database(':memory:').close();
    return (loaded = Database);
  } catch (err) {
    throw new Error(
      `SQLite: ${driver} (npm package ${PACKAGES[driver]}), the driver for Node ${process.version}, did not load: ${HOW_TO_FIX[driver]}`,
      { cause: err },
    );
  }
}

interface SqliteOptions {
  /** opened read-only (bench/lib/explain.js): no pragma that writes */
  readonly readonly?: boolean;
}

/**
 * Pages (64 MB) a write transaction may hold changed in memory before SQLite
 * writes them out early. Not a multiple of 256: SQLite also reads the number
 * as a boolean, by its low byte, and 16384 turned spilling off altogether.
 */
export const SPILL_PAGES = 16000;

/** bytes the WAL file is cut back to once SQLite starts it over (64 MiB, a few large bulks) */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/**
 * The database file opened with the driver, with leadline's pragmas.
 * @public bench/ imports it from dist/, where knip cannot follow
 */
export function openSqliteFile(path: string, opts: SqliteOptions = {}): BetterSqlite3.Database {
  const Database = load(sqliteDriver);
  const database = new Database(path, { readonly: opts.readonly ?? false });
  if (!opts.readonly) {
    database.pragma('journal_mode = WAL');
    // NORMAL in WAL mode loses nothing when the process dies; only a power cut
    // can drop the last commits. FULL costs an fsync per commit.
    database.pragma('synchronous = NORMAL');
    // Without a limit the WAL file keeps the size of the largest burst it
    // ever held (a recycle, a big import: hundreds of MB) for as long as the
    // database is open; SQLite reuses it from the start but never gives the
    // space back. With one, the file is cut back to the limit when SQLite
    // starts it over after a checkpoint.
    database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  }
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  // A write transaction whose changed pages outgrow the page cache
  // (better-sqlite3's 16 MB) writes them to the WAL early, and again when
  // they change again: a 1000-lead bulk into a table past ~100,000 leads
  // changes thousands of pages (a random id, and the reversed identifiers,
  // land anywhere). Early writes start past SPILL_PAGES instead; a bigger
  // transaction spills as before. bench/diag/sqlite-bulk.js, the last 40 of
  // 150 batches: 91.3 → 77.9 ms of CPU a batch, the floor's 81.4 → 68.1.
  database.pragma(`cache_spill = ${SPILL_PAGES}`);
  // The lead search's indexes on the reversed identifiers (migration 0018)
  // call it on every write to leads: SQLite has no reverse() of its own.
  // PostgreSQL's, by characters; deterministic, as an index needs.
  database.function('reverse', { deterministic: true }, reverse);
  return database;
}

/** text reversed by characters (code points), as PostgreSQL's reverse(); NULL stays NULL */
function reverse(value: unknown): string | null {
  return value === null ? null : Array.from(String(value)).reverse().join('');
}

interface OpenedSqlite extends SqliteDatabase {
  readonly driver: SqliteDriver;
  /** the same connection, for the driver's own API (the tests, bench/diag/sqlite-drivers.js) */
  readonly raw: BetterSqlite3.Database;
}

/**
 * What Kysely's SqliteDialect takes, over openSqliteFile(path).
 *
 * Kysely's SQLite driver prepares every statement anew, and for leadline's
 * small statements better-sqlite3's prepare() costs more than running them
 * (bench/: the limit=1 list statement 92 µs prepared each time, 24 µs reused).
 * Statements are reused by SQL text. The texts are a small fixed set (a bulk
 * binds its whole batch as one JSON parameter, so no text grows with the
 * data); the cache is bounded all the same. Reuse is safe: the one connection
 * runs one statement at a time.
 */
const STATEMENT_CACHE_MAX = 500;
export function openSqliteConnection(path: string): OpenedSqlite {
  const database = openSqliteFile(path);
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    driver: sqliteDriver,
    raw: database,
    close: () => database.close(),
    prepare(text) {
      let statement = cache.get(text);
      if (statement === undefined) {
        if (cache.size >= STATEMENT_CACHE_MAX) cache.clear();
        statement = database.prepare(text);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}
