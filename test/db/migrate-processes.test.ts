/**
 * Separate `leadline migrate` processes started together on an empty database,
 * as N instances of a deployment start: every one succeeds and the schema is
 * migrated exactly once. (migrate.test.ts releases connections at the same
 * instant with a barrier; this one is the real thing, with processes.) And
 * `leadline serve`, which also makes the first start's demo: two servers
 * starting together make one.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { availableStores, createTestStore } from '../helpers/db.js';
import { BIN, type ServerProcess, startServerProcess } from '../helpers/server-process.js';

const MIGRATIONS = readdirSync(new URL('../../src/db/migrations/', import.meta.url))
  .filter((f) => /^\d{4}_.*\.ts$/.test(f))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();

function migrate(url: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'migrate'], { env: { ...process.env, DATABASE_URL: url } }, (err, _stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe.each(await availableStores())('leadline migrate from 4 processes at once on %s', (kind) => {
  it('all succeed, and each migration is applied once', async () => {
    const store = await createTestStore(kind);
    try {
      const runs = await Promise.all(Array.from({ length: 4 }, () => migrate(store.url)));
      // each says where the database is, and nothing else
      expect(runs).toEqual(runs.map(() => ({ code: 0, stderr: expect.stringMatching(/^database: (sqlite|postgres) \S+\n$/) })));
      const db = await store.open();
      try {
        const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.kysely);
        expect(rows.map((r) => r.name)).toEqual(MIGRATIONS);
      } finally {
        await db.close();
      }
    } finally {
      await store.drop();
    }
  }, 60_000);
});

describe.each(await availableStores())('leadline serve from 2 processes at once on a new %s database', (kind) => {
  it('both start, and one demo is made (one company, campaign, key and user), announced by one of them', async () => {
    const store = await createTestStore(kind);
    const servers: ServerProcess[] = [];
    try {
      const started = await Promise.allSettled([0, 1].map(() => startServerProcess({ DATABASE_URL: store.url })));
      for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
      expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started'))).toEqual(['started', 'started']);
      // each prints, once listening, either the demo it made or how to get into the one already there
      const said = await Promise.all(
        servers.map((s) => s.waitForOutput(/First start: a demo company|The demo user \S+ has never signed in/)),
      );
      expect(said.map((out) => (out.includes('First start') ? 'made' : 'found')).sort()).toEqual(['found', 'made']);
      const db = await store.open();
      try {
        const count = async (table: 'companies' | 'campaigns' | 'api_keys' | 'users') =>
          Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db.kysely)).rows[0]!.n);
        expect({
          companies: await count('companies'),
          campaigns: await count('campaigns'),
          keys: await count('api_keys'),
          users: await count('users'),
        }).toEqual({ companies: 1, campaigns: 1, keys: 1, users: 1 });
      } finally {
        await db.close();
      }
    } finally {
      await Promise.all(servers.map((s) => s.stop('SIGKILL')));
      await store.drop();
    }
  }, 60_000);
});
