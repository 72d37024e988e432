/** The consent gate's claim condition (src/compliance/consent.ts says the rule). */
import { type RawBuilder, sql } from 'kysely';
import { CONSENT_GLOB, CONSENT_REGEX } from '../../compliance/consent.js';

/**
 * The campaign does not require consent, or the lead's metadata records it.
 * The campaign's setting is read by a subquery on its primary key (evaluated
 * once per statement, or per campaign when `campaignId` is an outer column),
 * so every caller of the claim and of nextDue is held to it whatever it
 * passes; the metadata is only parsed for the campaigns that require it.
 */
export function consented(dialect: 'sqlite' | 'postgres', campaignId: string | RawBuilder<unknown>): RawBuilder<unknown> {
  const required = sql`(select require_consent from campaigns where id = ${campaignId}) = 0`;
  return dialect === 'sqlite'
    ? sql`(${required} or json_extract(${readable.sqlite}, '$.consentAt') glob ${CONSENT_GLOB})`
    : // Spelt as IS NOT NULL, like the local window's condition (postgres/queue.ts inZones): the
      // planner takes it to hold for nearly every row, so it keeps walking the due range in order
      // up to the limit. A plain OR was estimated at one row and made it read and sort the whole range.
      sql`(case when ${required} or (${readable.postgres}::json ->> 'consentAt') ~ ${CONSENT_REGEX} then 1 end) is not null`;
}

/**
 * The metadata as text each database's JSON functions read alike. The API stores metadata as
 * JSON.stringify writes it, so a NUL or an unpaired surrogate in it is the escape `\u0000` or
 * `\udXXX` (a valid pair is written as itself). PostgreSQL's `->>` refused the whole object over
 * one of them (one lead's `note` stopped every claim of its campaign), and SQLite's path matched
 * a key `consentAt\u0000` as `consentAt` (the key ends at the NUL): consent where there was none.
 * Such escapes are read as `\ufffd`, so no key becomes `consentAt`. An escaped backslash before
 * `u0000` keeps the text valid JSON (`\\u0000` becomes `\\ufffd`: a backslash and text). Only
 * metadata holding one is rewritten (the CASE keeps the order).
 */
const readable = {
  sqlite: sql`(case when instr(leads.metadata, ${'\\u0000'}) > 0 then replace(leads.metadata, ${'\\u0000'}, ${'\\ufffd'})
    else leads.metadata end)`,
  postgres: sql`(case when leads.metadata ~ ${'\\\\u(0000|d[89a-f])'}
    then regexp_replace(leads.metadata, ${'\\\\u(0000|d[89a-f][0-9a-f]{2})'}, ${'\\\\ufffd'}, 'g') else leads.metadata end)`,
};
