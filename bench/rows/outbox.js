/**
 * Row 14: what the transactional outbox costs a bulk create (issue 17: a
 * bulk create of 1000 leads with its events against one without, ≤ 1.3×).
 *
 * Measured in-process, so that the figure is the database's work and not the
 * HTTP around it (row 1 has that): the floor's bulk create with the raw
 * driver, the fastest way to insert the leads (bench/floor/, its default
 * form), against the same insert plus the one events row leadline's outbox
 * writes for it (the same columns, items and indexes; on PostgreSQL its
 * NOTIFY too), atomically, the fastest way found (insertWithEvents in
 * bench/floor/). That ratio is what the outbox costs the unavoidable work.
 *
 * Beside it, leadline's own bulk create of new leads (insertThenLookup, as
 * the service runs it, in-process) with its outbox, against the same with
 * the event store's append replaced by a no-op in this process only: no
 * switch in src/ turns the outbox off, and none should (an event that can be
 * left out is not an outbox), so the stub is the bench's. It leaves
 * leadline's transaction and lock, which the outbox does not add.
 *
 * Each side has its own campaign, so each side's campaign grows alike; the
 * four sides take turns, one batch each, the order rotating.
 */
import { randomBytes } from 'node:crypto';
import { createCampaign } from '../../dist/campaigns/service.js';
import { parseDatabaseUrl } from '../../dist/config.js';
import { insertThenLookup } from '../../dist/leads/bulk-create.js';
import { KyselyEventStore, PostgresEventStore } from '../../dist/store/events.js';
import { openStore } from '../../dist/store/index.js';
import { openPostgres } from '../floor/postgres.js';
import { openSqlite } from '../floor/sqlite.js';
import { bulkBody } from '../lib/data.js';
import { latencyRow } from '../lib/stats.js';
import { check } from './checks.js';

const WARM = 3;

/** the leads of a fresh bulk as both leadline and the floor store them (bench/floor/server.js) */
function freshRows(campaignId, n) {
  const bytes = randomBytes(16 * n);
  return JSON.parse(bulkBody(campaignId, n)).leads.map((l, i) => ({
    id: `ld_${bytes.subarray(i * 16, i * 16 + 16).toString('base64url')}`,
    phoneNumber: l.phoneNumber ?? null,
    externalId: l.externalId ?? null,
    metadata: JSON.stringify(l.metadata ?? {}),
    scheduledFor: l.scheduledFor === undefined ? null : new Date(Date.parse(l.scheduledFor)).toISOString(),
    priority: l.priority ?? 0,
  }));
}

/** leadline's outbox left out: the append of both event stores a no-op until restored */
function withoutEvents(fn) {
  const saved = [KyselyEventStore.prototype.append, PostgresEventStore.prototype.append];
  KyselyEventStore.prototype.append = PostgresEventStore.prototype.append = async () => {};
  return fn().finally(() => {
    [KyselyEventStore.prototype.append, PostgresEventStore.prototype.append] = saved;
  });
}

export async function outboxRow(ctx) {
  const { kind, S, store, base, rows, log } = ctx;
  const n = S.bulk;
  log(`${kind}: 14 the outbox on a bulk create of ${n}`);
  const db = openStore(parseDatabaseUrl(store.url), { pgPoolSize: 2 });
  const raw = kind === 'sqlite' ? openSqlite(store.url.slice('sqlite:'.length)) : openPostgres(store.url, { poolSize: 2 });
  // each side answers how many leads it created
  const rawCreate = (insert) => async (campaignId, batch) => (await insert(campaignId, Date.now(), batch)).length;
  const leadlineCreate = async (campaignId, batch) =>
    (await insertThenLookup(db, campaignId, batch, Date.now)).filter((x) => x.skippedAs === null).length;
  try {
    const campaign = async (name) =>
      (await createCampaign(db, { companyId: store.companyId, name, hours: 'mon-sun 00:00-24:00' })).campaignId;
    const sides = [
      { name: 'raw, outbox', campaign: await campaign('bench outbox raw with'), run: rawCreate(raw.insertWithEvents) },
      { name: 'raw, none', campaign: await campaign('bench outbox raw without'), run: rawCreate(raw.insert) },
      { name: 'leadline, outbox', campaign: await campaign('bench outbox leadline with'), run: leadlineCreate },
      {
        name: 'leadline, none',
        campaign: await campaign('bench outbox leadline without'),
        run: (c, r) => withoutEvents(() => leadlineCreate(c, r)),
      },
    ];
    for (const s of sides) s.ms = [];
    const once = async (s, timed) => {
      const batch = freshRows(s.campaign, n);
      const t0 = performance.now();
      const created = await s.run(s.campaign, batch);
      const ms = performance.now() - t0;
      check(`row 14 ${s.name}`, created === n, `created ${created} of ${n}`);
      if (timed) s.ms.push(ms);
      return batch;
    };

    // Before timing: each side's batch is what it should be, and the two
    // outbox sides wrote the same events row, byte for byte in its shape.
    for (const s of sides) {
      const batch = await once(s, false);
      const events = await db.kysely
        .selectFrom('events')
        .select(['type', 'count', 'items'])
        .where('campaign_id', '=', s.campaign)
        .execute();
      if (s.name.endsWith('none')) check(`row 14 ${s.name}`, events.length === 0, `${events.length} events rows`);
      else {
        const want = JSON.stringify(batch.map((r) => ({ leadId: r.id, externalId: r.externalId })));
        const [e] = events;
        check(`row 14 ${s.name}`, events.length === 1 && e.type === 'lead.created' && Number(e.count) === n, 'one lead.created row');
        check(`row 14 ${s.name}`, e.items === want, 'its items as leadline writes them');
      }
      for (let i = 1; i < WARM; i++) await once(s, false);
    }

    // one batch per side in turn, the order rotating: on a shared machine
    // the load changes within a block of 10, and would land on one side
    for (let i = 0; i < S.rounds * S.perRound; i++) {
      for (let k = 0; k < sides.length; k++) await once(sides[(i + k) % sides.length], true);
    }

    const [rawWith, rawWithout, llWith, llWithout] = sides;
    const form = kind === 'sqlite' ? 'BEGIN IMMEDIATE, the insert, one events row (items built in JS), COMMIT' : forms[raw.forms.outbox];
    const pair = (label, a, b, note) => {
      const row = latencyRow(base(14, label), a.ms, b.ms, 1.3);
      row.floor = `${row.floor} (no outbox)`;
      row.note = note;
      rows.push(row);
    };
    pair(
      `outbox on bulk create ${n}, raw driver`,
      rawWith,
      rawWithout,
      `in-process; without: the floor's bulk create (row 1's statement); with: ${form}`,
    );
    pair(
      `outbox on bulk create ${n}, leadline`,
      llWith,
      llWithout,
      `in-process insertThenLookup; without: its event store's append a no-op (bench only)`,
    );
  } finally {
    await raw.close();
    await db.close();
  }
}

/** the PostgreSQL outbox forms (bench/floor/postgres.js), as the note names them */
const forms = {
  cte: 'one statement, the insert a data-modifying CTE feeding the events row and its NOTIFY',
  tx: 'BEGIN, the insert, the events row (items built in JS) and its NOTIFY, COMMIT',
};
