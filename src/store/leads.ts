/**
 * The leads table, as the API and the dashboard use it: create, deduplicate,
 * list, delete, count, look up; each change with its events (events.ts).
 * The dialer's columns and claims are in queue.ts. Implementations: sqlite/leads.ts and postgres/leads.ts, over the
 * statements written once for both in shared/leads.ts.
 */
import type { LeadStatus } from '../leads/lifecycle.js';

export interface NewLeadRow {
  id: string;
  phoneNumber: string | null;
  externalId: string | null;
  /** JSON text */
  metadata: string;
  scheduledFor: string | null;
  priority: number;
}

export interface IdentifierRow {
  external_id: string | null;
  phone_number: string | null;
}

export interface ExistingRow extends IdentifierRow {
  id: string;
}

export interface DeletedLead extends IdentifierRow {
  id: string;
}

export type Lookup = { externalId: string } | { phoneNumber: string };

/** one page of the API's list, its JSON already built */
export interface PageJson {
  /** the leads as a JSON array text, in the API's Lead shape */
  page: string;
  n: number;
  /** the seq of the page's last lead; null for an empty page */
  last: number | null;
  /** a lead of the campaign (and status) exists after the page's last one */
  more: boolean;
}

/** a lead as stored, for the dashboard (no dialer columns but recycled attempts) */
export interface LeadRow {
  seq: number;
  id: string;
  campaign_id: string;
  phone_number: string | null;
  external_id: string | null;
  metadata: string;
  status: LeadStatus;
  scheduled_for: string | null;
  priority: number;
  attempts: number;
  extra_attempts: number;
  created_at: number;
}

export interface StatusCount {
  campaign_id: string;
  status: LeadStatus;
  n: number;
}

export interface LeadStore {
  /** the new lead's id; null when a unique index refused it (a duplicate) */
  insertOne(campaignId: string, lead: NewLeadRow, now: number): Promise<string | null>;
  /** inserts in array order (so seq follows it); the ids actually inserted. Run it in a transaction: it writes events too. */
  insertMany(campaignId: string, leads: readonly NewLeadRow[], now: number): Promise<Set<string>>;
  exists(campaignId: string, by: Lookup): Promise<boolean>;
  /** the campaign's leads holding one of the externalIds, or one of the phone numbers (a lead may come twice) */
  findExisting(campaignId: string, externalIds: readonly string[], phoneNumbers: readonly string[]): Promise<ExistingRow[]>;
  /** which of the values a lead of the campaign holds in the column: read from its unique index alone */
  taken(campaignId: string, column: 'external_id' | 'phone_number', values: readonly string[]): Promise<Set<string>>;
  deleteOne(campaignId: string, by: Lookup, now?: number): Promise<boolean>;
  /** deletes the leads matching externalIds (by external_id) or phoneNumbers (by phone_number). Run it in a transaction. */
  deleteMany(campaignId: string, externalIds: readonly string[], phoneNumbers: readonly string[], now?: number): Promise<DeletedLead[]>;
  /** the API's page: the leads after `afterSeq`, in creation order */
  listPage(campaignId: string, status: LeadStatus | undefined, afterSeq: number, limit: number): Promise<PageJson>;
  /** the same page as typed rows, for the dashboard */
  page(campaignId: string, status: LeadStatus | undefined, afterSeq: number, limit: number): Promise<{ leads: LeadRow[]; more: boolean }>;
  /**
   * Where the page before the one starting after `afterSeq` starts: the seq
   * `limit` leads back (a backward walk of the keyset index), or null when
   * that page is the first.
   */
  pageStartBefore(campaignId: string, status: LeadStatus | undefined, afterSeq: number, limit: number): Promise<number | null>;
  byId(campaignId: string, leadId: string): Promise<LeadRow | undefined>;
  /**
   * Up to `limit` leads whose phone number or externalId starts or ends with
   * `text` (exactly: case and all), each way an index range (shared/lead-search.ts);
   * exact matches first, then oldest first. `more`: other leads match too.
   */
  search(campaignId: string, text: string, limit: number): Promise<{ leads: LeadRow[]; more: boolean }>;
  /** the plans of the search's four statements, one line per node (EXPLAIN; nothing is run) */
  searchPlan(campaignId: string, text: string): Promise<string[][]>;
  /** lead counts per campaign and status, of the company (and of one campaign, if given) */
  statusCounts(companyId: string, campaignId?: string): Promise<StatusCount[]>;
}
