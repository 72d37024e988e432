#!/usr/bin/env node
/**
 * Row 7's floor: a dialer worker that does only what a call cannot go
 * without, on leadline's own tables (every index of `leads` and `attempts`
 * paid for), with the raw driver (`pg`, one connection, no pool) and no
 * framework.
 *
 *   node bench/floor/dialer.js <database url> <campaign id> <calls in flight> <worker id>
 *
 * A turn, repeated until SIGTERM:
 *  1. claim: up to `calls in flight` due leads, best first (priority, due time,
 *     creation), taken with SKIP LOCKED so that workers never take the same
 *     lead, and marked as held: one statement;
 *  2. open: an attempt row for each, committed (durably) before the call is
 *     placed, so that every call placed is recorded: one statement;
 *  3. the calls: zero seconds each, half of them answered, as row 7's simulate
 *     provider runs them;
 *  4. close: each attempt's outcome, and its lead concluded or due again in 30
 *     minutes (the campaign's default retry delay), in one statement
 *     (the attempts' update as a data-modifying CTE).
 * Three round trips for a turn of up to 50 calls, each in autocommit.
 *
 * Left out, as the other floors leave out validation and authentication: the
 * compliance checks before a call (do-not-call list, per-number caps and
 * busy numbers, consent, the local window), the outbox's events, the
 * campaign-wide concurrency lock (each floor worker keeps to its share, which
 * only works for a fixed number of workers), heartbeats, claim renewal and
 * the per-call log line. leadline's claim also walks one priority at a time
 * (a loose index scan); the floor's claim is the same statement without the
 * compliance conditions, as it is the fastest plan found for the due index.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const [url, campaignId, inFlightArg, worker] = process.argv.slice(2);
const inFlight = Number(inFlightArg);
const LEASE_MS = 60_000;
const RETRY_MS = 30 * 60_000;

// bigint columns (seq, epoch ms) as numbers, as leadline reads them
pg.types.setTypeParser(20, Number);
const client = new pg.Client({ connectionString: url });
await client.connect();
const { rows: campaignRows } = await client.query('select company_id, max_attempts from campaigns where id = $1', [campaignId]);
const { company_id: companyId, max_attempts: maxAttempts } = campaignRows[0];

const due = `coalesce(next_attempt_at, scheduled_for, '') collate "C"`;
// Unnamed, so PostgreSQL plans it with its values each time, as leadline's claim
// (src/db/planned.ts): a generic plan cannot tell how far a priority's due range reaches.
const CLAIM = `
  with recursive priorities(p) as (
    select max(priority) from leads where campaign_id = $1 and status in ('raw', 'attempting')
    union all
    select (select max(priority) from leads
            where campaign_id = $1 and status in ('raw', 'attempting') and priority < priorities.p)
    from priorities where priorities.p is not null
  ),
  picked as (
    select c.seq from priorities cross join lateral (
      select seq from leads
      where campaign_id = $1 and status in ('raw', 'attempting') and priority = priorities.p
        and ${due} <= $2 and attempts < $3 + extra_attempts and claimed_by is null
      order by ${due}, seq
      limit $4
      for update skip locked
    ) c
    limit $4
  )
  update leads l set status = 'attempting', claimed_by = $5, claimed_at = $6, next_attempt_at = $7
  from picked where l.seq = picked.seq
  returning l.seq, l.id, l.phone_number, l.attempts, l.extra_attempts`;

const OPEN = {
  name: 'floor-open',
  text: `insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt, started_at, success, phone_number, worker,
      claimed_at, state, counts, deadline_at)
    select t.a, t.l, $1, $2, t.n, $3, 0, t.p, $4, $5, 'open', 1, $6
    from unnest($7::text[], $8::text[], $9::int[], $10::text[]) as t(a, l, n, p)`,
};

const CLOSE = {
  name: 'floor-close',
  text: `with closed as (
      update attempts a set state = 'closed', closed_by = 'dialer', finished_at = $1, success = t.s, outcome = t.o, duration_seconds = 0
      from unnest($2::text[], $3::int[], $4::text[]) as t(id, s, o) where a.attempt_id = t.id
    )
    update leads l set status = t.st, attempts = l.attempts + 1, claimed_by = null, claimed_at = null, next_attempt_at = t.nx
    from unnest($5::bigint[], $6::text[], $7::text[]) as t(seq, st, nx) where l.seq = t.seq`,
};

let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
});

while (!stopping) {
  const now = Date.now();
  const lease = new Date(now + LEASE_MS).toISOString();
  const { rows: leads } = await client.query(CLAIM, [campaignId, new Date(now).toISOString(), maxAttempts, inFlight, worker, now, lease]);
  if (leads.length === 0) {
    await new Promise((r) => setTimeout(r, 100));
    continue;
  }
  const bytes = randomBytes(16 * leads.length);
  const attemptIds = leads.map((_, i) => `at_${bytes.subarray(i * 16, i * 16 + 16).toString('base64url')}`);
  const started = Date.now();
  await client.query({
    ...OPEN,
    values: [
      campaignId,
      companyId,
      started,
      worker,
      now,
      started + LEASE_MS,
      attemptIds,
      leads.map((l) => l.id),
      leads.map((l) => l.attempts + 1),
      leads.map((l) => l.phone_number),
    ],
  });
  // the calls, zero seconds each: half answered (the lead is concluded), half not (due again later)
  const answered = leads.map(() => Math.random() < 0.5);
  const finished = Date.now();
  const retryAt = new Date(finished + RETRY_MS).toISOString();
  await client.query({
    ...CLOSE,
    values: [
      finished,
      attemptIds,
      answered.map((a) => (a ? 1 : 0)),
      answered.map((a) => (a ? 'answered' : 'no-answer')),
      leads.map((l) => l.seq),
      leads.map((l, i) => (answered[i] ? 'concluded' : l.attempts + 1 >= maxAttempts + l.extra_attempts ? 'exhausted' : 'attempting')),
      answered.map((a) => (a ? null : retryAt)),
    ],
  });
}
await client.end();
