/**
 * The consent gate (--require-consent): a lead of such a campaign is due only
 * when its metadata's `consentAt` is a string starting with an ISO 8601 date
 * and time to the minute (`2026-03-01T14:05`, usually with seconds and a zone:
 * `2026-03-01T14:05:00Z`). The rule is one pattern, spelt three times
 * (JavaScript for `explain` here, a GLOB for SQLite and a regular expression
 * for PostgreSQL in src/store/shared/consent.ts, which the claim statements
 * use) so that the claim and `explain` never disagree.
 */

const PATTERN = /^\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d/;
/** PATTERN for SQLite's GLOB */
export const CONSENT_GLOB = '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]*';
/** PATTERN for PostgreSQL's ~ */
export const CONSENT_REGEX = '^[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]';

/** whether parsed metadata records consent */
export const hasConsent = (metadata: Record<string, unknown>): boolean =>
  typeof metadata.consentAt === 'string' && PATTERN.test(metadata.consentAt);
