/**
 * A fresh database per test file: a temporary SQLite file, or a new
 * PostgreSQL database created on the test server and dropped afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { DatabaseConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/index.js';
import { PG_ADMIN_URL, serviceAvailable } from './services.js';

export type StoreKind = 'sqlite' | 'postgres';

export interface TestStore {
  readonly config: DatabaseConfig;
  readonly url: string;
  /** opens a new, migrated connection to this store */
  open(): Promise<Store>;
  drop(): Promise<void>;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** `pgCreate`: more of PostgreSQL's `create database` (a collation, say) */
export async function createTestStore(kind: StoreKind, pgCreate = ''): Promise<TestStore> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'leadline-test-'));
    const path = join(dir, 'test.db');
    const config: DatabaseConfig = { kind: 'sqlite', path };
    return {
      config,
      url: `sqlite:${path}`,
      open: async () => {
        const store = openStore(config);
        await store.migrate();
        return store;
      },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `leadline_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await adminQuery(`create database ${name} ${pgCreate}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const config: DatabaseConfig = { kind: 'postgres', url: url.toString() };
  return {
    config,
    url: url.toString(),
    open: async () => {
      const store = openStore(config, { pgPoolSize: 5 });
      await store.migrate();
      return store;
    },
    drop: () => adminQuery(`drop database if exists ${name} with (force)`),
  };
}

/**
 * the stores a behaviour suite runs against: SQLite always, PostgreSQL when
 * reachable (always under CI). TEST_STORES=postgres narrows it to PostgreSQL,
 * for the run through PgBouncer (npm run test:pgbouncer).
 */
export async function availableStores(): Promise<StoreKind[]> {
  if (process.env.TEST_STORES === 'postgres') return ['postgres'];
  return (await serviceAvailable('postgres')) ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * A fresh, migrated store of `kind` for the enclosing `describe`: opened
 * before its tests (handed to `opened`), closed and dropped after them.
 */
export function useStore(kind: StoreKind, opened: (db: Store) => void): void {
  let store: TestStore | undefined;
  let db: Store | undefined;
  beforeAll(async () => {
    store = await createTestStore(kind);
    db = await store.open();
    opened(db);
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });
}
