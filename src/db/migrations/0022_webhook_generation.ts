/**
 * webhooks.generation: bumped by every replay (a rewind of the endpoint's
 * position). A delivery round reads the endpoint's generation when it leases
 * it and writes its progress only where the generation is still that one, so
 * a replay asked during a round is kept: the round stops and the next one
 * starts from the rewound position (src/webhooks/deliverer.ts). The lease
 * alone could not tell: the replay does not take the lease.
 *
 * Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';

export function webhookGeneration() {
  return {
    async up(db: Kysely<any>) {
      await sql`alter table webhooks add column generation integer not null default 0`.execute(db);
    },
  };
}
