/**
 * The dashboard's lead search (LeadStore.search): the leads whose phone
 * number or externalId starts or ends with the text typed. Each of the four
 * ways is a range scan of an index (migration 0018), limited: "starts with p"
 * is `p <= x < next(p)`, and "ends with s" is the same range over reverse(x)
 * with reverse(s). Ranges rather than LIKE: no `%` or `_` to escape, no case
 * rule (SQLite's LIKE ignores ASCII case and then cannot use a BINARY
 * index), and the same statement on both databases. The comparisons are of
 * bytes (SQLite's BINARY; on PostgreSQL the operators of text_pattern_ops, the
 * class of the unique indexes since migration 0021, or the "C" collation of
 * 0018's `_end` indexes), and UTF-8's byte order is the order of code points,
 * which next() counts in.
 */
import { type RawBuilder, sql } from 'kysely';
import { plannedWithValues } from '../../db/planned.js';

const MAX_CODE_POINT = 0x10ffff;

/**
 * The least text greater than every text that starts with `prefix`: its last
 * character one code point on (past the surrogates, which UTF-8 cannot hold);
 * null when there is none (every character the highest).
 */
export function nextPrefix(prefix: string): string | null {
  const chars = Array.from(prefix);
  while (chars.length > 0) {
    const last = chars.pop()!.codePointAt(0)!;
    if (last < MAX_CODE_POINT) return chars.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
  }
  return null;
}

const reversed = (text: string) => Array.from(text).reverse().join('');

/**
 * the indexed expression one way is read through (the column or its reverse),
 * and whether its index compares it with text_pattern_ops' operators
 * (`~>=~`, `~<~`) rather than `>=` and `<`
 */
export type SearchKey = (column: 'phone_number' | 'external_id', end: boolean) => { key: RawBuilder<string>; pattern: boolean };

const PLAIN = { ge: sql.raw('>='), lt: sql.raw('<'), order: sql`` };
const PATTERN = { ge: sql.raw('~>=~'), lt: sql.raw('~<~'), order: sql`using ~<~` };

/** the four scans: each the first `take` leads (by its key) of the campaign it finds */
export function searchScans(key: SearchKey, campaignId: string, text: string, take: number, columns: RawBuilder<unknown>) {
  return (['phone_number', 'external_id'] as const).flatMap((column) =>
    [false, true].map((end) => {
      const { key: k, pattern } = key(column, end);
      const op = pattern ? PATTERN : PLAIN;
      const from = end ? reversed(text) : text;
      const to = nextPrefix(from);
      return sql`${plannedWithValues} select ${columns} from leads
        where campaign_id = ${campaignId} and ${sql.ref(column)} is not null
          and ${k} ${op.ge} ${from} ${to === null ? sql`` : sql`and ${k} ${op.lt} ${to}`}
        order by ${k} ${op.order} limit ${take}`;
    }),
  );
}
