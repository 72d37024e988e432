/**
 * Crash safety: `leadline serve` is SIGKILLed while it serves concurrent bulk
 * creates and bulk deletes, then restarted on the same database, several
 * rounds in a row. Every acknowledged bulk is wholly there (a delete: wholly
 * gone), no bulk is ever partly applied, and the database passes its
 * integrity checks (docs/api.md "Bulk requests": atomic even if the process dies).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/service.js';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, createTestStore, type StoreKind, type TestStore } from '../helpers/db.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

const ROUNDS = 3;
const BATCH = 400;
const CREATORS = 3;
const DELETERS = 2;

interface Batch {
  externalIds: string[];
  /** lost: sent, never acknowledged, and found absent after the crash */
  created: 'sent' | 'acked' | 'lost';
  createdIds?: string[];
  deleted: 'no' | 'sent' | 'acked';
}

let phones = 0;
const nextPhone = () => `+1415${String(++phones).padStart(7, '0')}`;

async function integrity(db: Store, kind: StoreKind): Promise<string[]> {
  const problems: string[] = [];
  if (kind === 'sqlite') {
    const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db.kysely);
    if (rows.map((r) => r.integrity_check).join() !== 'ok') problems.push(`integrity_check: ${JSON.stringify(rows)}`);
    const fk = await sql`pragma foreign_key_check`.execute(db.kysely);
    if (fk.rows.length) problems.push(`foreign_key_check: ${JSON.stringify(fk.rows)}`);
  } else {
    const amcheck = await sql`select 1 from pg_available_extensions where name = 'amcheck'`.execute(db.kysely);
    if (amcheck.rows.length) {
      await sql`create extension if not exists amcheck`.execute(db.kysely);
      const heap = await sql`select * from verify_heapam('leads')`.execute(db.kysely);
      if (heap.rows.length) problems.push(`verify_heapam: ${JSON.stringify(heap.rows)}`);
      await sql`select bt_index_check(indexrelid, true) from pg_index where indrelid = 'leads'::regclass`.execute(db.kysely);
    }
  }
  // the uniqueness the indexes promise, checked on the rows themselves
  const dup = await sql`
    select campaign_id, external_id from leads where external_id is not null
    group by campaign_id, external_id having count(*) > 1`.execute(db.kysely);
  if (dup.rows.length) problems.push(`duplicates: ${JSON.stringify(dup.rows.slice(0, 5))}`);
  return problems;
}

describe.each(await availableStores())('SIGKILL mid-traffic on %s', (kind) => {
  let store: TestStore;
  let env: Record<string, string>;
  let key: string;
  let campaignId: string;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    store = await createTestStore(kind);
    const db = await store.open();
    const { companyId } = await createCompany(db, 'Crash Co');
    ({ campaignId } = await createCampaign(db, { companyId, name: 'Crash' }));
    ({ key } = await createKey(db, { companyId, name: 'crash', scope: 'write' }));
    await db.close();
    env = {
      DATABASE_URL: store.url,
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_HOUR: '1000000',
      RATE_LIMIT_BULK_PER_MINUTE: '1000000',
    };
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await store?.drop();
  });

  const post = (url: string, path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it(`${ROUNDS} rounds: acknowledged bulks are whole, none is half-applied, the database is sound`, async () => {
    const batches: Batch[] = [];
    const outcomes = { acked: 0, deletesAcked: 0, unackedKept: 0, unackedLost: 0 };
    server = await startServerProcess(env);
    for (let round = 1; round <= ROUNDS; round++) {
      const url = server.url;
      let alive = true;
      const creator = async (w: number) => {
        for (let b = 0; alive; b++) {
          const batch: Batch = {
            externalIds: Array.from({ length: BATCH }, (_, i) => `r${round}-w${w}-b${b}-${i}`),
            created: 'sent',
            deleted: 'no',
          };
          batches.push(batch);
          const leads = batch.externalIds.map((externalId) => ({ externalId, phoneNumber: nextPhone(), metadata: { round } }));
          try {
            const res = await post(url, '/api/v1/leads/bulk', { campaignId, leads });
            const body = await res.json();
            expect(res.status).toBe(200);
            expect(body.data.created).toBe(BATCH);
            Object.assign(batch, { created: 'acked', createdIds: body.data.createdIds });
            outcomes.acked++;
          } catch (err) {
            if (alive) throw err;
            return; // the server died under this request
          }
        }
      };
      const deleter = async () => {
        while (alive) {
          const batch = batches.find((b) => b.created === 'acked' && b.deleted === 'no');
          if (!batch) {
            await new Promise((r) => setTimeout(r, 5));
            continue;
          }
          batch.deleted = 'sent';
          try {
            const res = await post(url, '/api/v1/leads/bulk-delete', {
              campaignId,
              leads: batch.externalIds.map((externalId) => ({ externalId })),
            });
            const body = await res.json();
            expect(res.status).toBe(200);
            expect(body.data.deleted).toBe(BATCH);
            batch.deleted = 'acked';
            outcomes.deletesAcked++;
          } catch (err) {
            if (alive) throw err;
            return;
          }
        }
      };
      const workers = [...Array.from({ length: CREATORS }, (_, w) => creator(w)), ...Array.from({ length: DELETERS }, deleter)];

      // let traffic build up, then kill at an arbitrary moment inside it
      const ackedBefore = batches.filter((b) => b.created === 'acked').length;
      const deadline = Date.now() + 5000;
      while (batches.filter((b) => b.created === 'acked').length < ackedBefore + 6 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, Math.random() * 150));
      alive = false; // requests in flight stay in flight; their failures are now expected
      server.child.kill('SIGKILL');
      expect(await server.exited).toBe('SIGKILL');
      await Promise.all(workers);

      // restart on the same database: it must come up and agree with what is stored
      server = await startServerProcess(env);
      const db = await store.open();
      try {
        expect(await integrity(db, kind)).toEqual([]);
        const rows = await db.kysely.selectFrom('leads').select(['id', 'external_id']).where('campaign_id', '=', campaignId).execute();
        const stored = new Map(rows.map((r) => [r.external_id!, r.id]));
        for (const batch of batches) {
          const present = batch.externalIds.filter((e) => stored.has(e));
          const where = `round ${round}, batch ${batch.externalIds[0]} (${batch.created}, delete ${batch.deleted})`;
          expect([0, BATCH], `${where}: ${present.length} of ${BATCH} present`).toContain(present.length);
          if (batch.deleted === 'acked' || batch.created === 'lost') expect(present.length, where).toBe(0);
          else if (batch.created === 'acked' && batch.deleted === 'no') {
            expect(present.length, where).toBe(BATCH);
            expect(
              batch.externalIds.map((e) => stored.get(e)),
              where,
            ).toEqual(batch.createdIds);
          }
        }
        const listed = await fetch(`${server.url}/api/v1/leads?campaignId=${campaignId}&limit=8000`, { headers: { 'x-api-key': key } });
        expect((await listed.json()).data.count).toBe(Math.min(rows.length, 8000));
        // what the crash left unanswered is settled now, one way or the other
        for (const b of batches) {
          const there = stored.has(b.externalIds[0]!);
          if (b.created === 'sent') {
            if (there) Object.assign(b, { created: 'acked', createdIds: b.externalIds.map((e) => stored.get(e)) });
            else b.created = 'lost';
            outcomes[there ? 'unackedKept' : 'unackedLost']++;
          }
          if (b.deleted === 'sent') b.deleted = there ? 'no' : 'acked';
        }
      } finally {
        await db.close();
      }
    }
    expect(outcomes.acked).toBeGreaterThanOrEqual(ROUNDS * 6);
    expect(outcomes.deletesAcked).toBeGreaterThan(0);
    console.log(`crash on ${kind}: ${ROUNDS} kills, ${JSON.stringify(outcomes)}`);
  }, 120_000);
});
