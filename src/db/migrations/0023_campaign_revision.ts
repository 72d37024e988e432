/**
 * A running dialer must see a settings change within its refresh interval
 * (2 s, docs/dialer.md) even while it has nothing to do: a campaign that is
 * closed or idle used to wait for the idle poll (60 s). Reading every
 * campaign row every two seconds costs too much over many campaigns (a read
 * of 10,000 rows took 180 ms of the dialer's CPU on SQLite, 90 ms on
 * PostgreSQL: 4-9% of a core every two seconds), so each row carries a revision that changes whenever the row
 * does, and the dialer asks every two seconds for one fingerprint of them
 * all (store/campaigns.ts, revision: the count and the sum of the
 * revisions), reading the rows only when it moved.
 *
 * Triggers write the revision, not leadline's statements, so a change made
 * around leadline (an operator's UPDATE in psql or the sqlite3 shell) is seen
 * too. Every new value is larger than any the row had, so a committed change
 * always raises the sum; a deletion lowers the count.
 *
 * - PostgreSQL: a sequence, not a counter row. A counter row would be one lock
 *   every campaign write queues on (and two transactions writing campaigns in
 *   opposite orders could deadlock on it); nextval takes none.
 * - SQLite: writers are serialised, so a counter row does it. An update
 *   trigger's own UPDATE does not fire it again (recursive_triggers is off;
 *   the WHEN clause guards it anyway).
 *
 * Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function campaignRevision(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') {
        await sql`create sequence campaign_revisions`.execute(db);
        await sql`alter table campaigns add column revision bigint not null default 0`.execute(db);
        await sql`create function campaign_revise() returns trigger language plpgsql as $$
          begin new.revision := nextval('campaign_revisions'); return new; end $$`.execute(db);
        await sql`create trigger campaigns_revise before insert or update on campaigns
          for each row execute function campaign_revise()`.execute(db);
      } else {
        // a counter row, as the sequence: max(revision) + 1 would give a
        // deleted campaign's value to the next one created, and the sum could stay
        await sql`create table campaign_revisions (last integer not null)`.execute(db);
        await sql`insert into campaign_revisions (last) values (0)`.execute(db);
        await sql`alter table campaigns add column revision integer not null default 0`.execute(db);
        const revise = sql`update campaign_revisions set last = last + 1;
          update campaigns set revision = (select last from campaign_revisions) where id = new.id;`;
        await sql`create trigger campaigns_revise_insert after insert on campaigns begin ${revise} end`.execute(db);
        await sql`create trigger campaigns_revise_update after update on campaigns when new.revision = old.revision
          begin ${revise} end`.execute(db);
      }
    },
  };
}
