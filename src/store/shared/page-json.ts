/**
 * A list page as JSON text, written the same way on both databases: each
 * lead's JSON built by the database, the page joined here. One place for the
 * API's Lead object as the list sends it (docs/api.md, "Leads").
 */
import { type RawBuilder, sql } from 'kysely';
import type { PageJson } from '../leads.js';

/**
 * The Lead object of the row as JSON text. `quote` writes a text column as a
 * JSON string (json_quote on SQLite, to_json on PostgreSQL: the escapes of
 * JSON.stringify, test/leads/list-page.test.ts); `campaign` is the campaign id
 * as a JSON string. Metadata is stored JSON text, spliced as it is.
 */
export function leadJson(quote: (column: string) => RawBuilder<unknown>, campaign: RawBuilder<unknown>): RawBuilder<string> {
  const opt = (name: string, column: string) =>
    sql`case when ${sql.ref(column)} is null then '' else ${sql.lit(`,"${name}":`)} || ${quote(column)} end`;
  return sql<string>`'{"_id":' || ${quote('id')} || ',"campaignId":' || ${campaign}
      || ${opt('phoneNumber', 'phone_number')} || ${opt('externalId', 'external_id')}
      || ',"metadata":' || metadata || ',"status":"' || status || '"'
      || ${opt('scheduledFor', 'scheduled_for')}
      || ',"priority":' || priority || ',"attempts":' || attempts || ',"_creationTime":' || created_at || '}'`;
}

/** the page from limit + 1 rows of (seq, lead JSON): the extra row answers `more` */
export function joinPage(rows: readonly { seq: number | string; j: string }[], limit: number): PageJson {
  const more = rows.length > limit;
  const n = more ? limit : rows.length;
  // += builds a rope; V8 flattens it once, when the reply is written
  let page = '[';
  for (let i = 0; i < n; i++) page += (i === 0 ? '' : ',') + rows[i]!.j;
  return { page: `${page}]`, n, last: n === 0 ? null : Number(rows[n - 1]!.seq), more };
}
