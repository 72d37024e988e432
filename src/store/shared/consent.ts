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
    ? sql`(${required} or json_extract(leads.metadata, '$.consentAt') glob ${CONSENT_GLOB})`
    : // Spelt as IS NOT NULL, like the local window's condition (postgres/queue.ts inZones): the
      // planner takes it to hold for nearly every row, so it keeps walking the due range in order
      // up to the limit. A plain OR was estimated at one row and made it read and sort the whole range.
      sql`(case when ${required} or (leads.metadata::json ->> 'consentAt') ~ ${CONSENT_REGEX} then 1 end) is not null`;
}
