/**
 * The US and Canadian area-code table was checked against the state or
 * province each code serves (src/dialer/nanp-area-codes.ts): 689 (Orlando) was
 * mapped to Chicago's clock, and a few other codes gained or lost a zone. A
 * lead's zones are worked out once and stored, so the leads with these codes
 * go back to "not worked out" and the dialer works them out again, from the
 * corrected table, before it next claims from their campaign. Frozen: the
 * list of codes is this migration's own.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

const CHANGED = ['208', '236', '250', '257', '306', '334', '367', '418', '458', '474', '541', '581', '605', '639', '672', '689', '701', '709', '775', '778', '807', '867', '879', '907', '986'];

export function nanpZones(_dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await sql`update leads set local_zones = null
        where phone_number like '+1%' and substr(phone_number, 3, 3) in (${sql.join(CHANGED)})`.execute(db);
    },
  };
}
