/**
 * Separate `leadline migrate` processes started together on an empty database,
 * as N instances of a deployment start: every one succeeds and the schema is
 * migrated exactly once. (migrate.test.ts releases connections at the same
 * instant with a barrier; this one is the real thing, with processes.)
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { availableStores, createTestStore } from '../helpers/db.js';
import { BIN } from '../helpers/server-process.js';

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
