/** Kysely table types. Column names are snake_case; the API's names live in the HTTP layer. */
import type { Generated } from 'kysely';

export interface CompanyTable {
  id: string;
  name: string;
  created_at: number;
}

export interface CampaignTable {
  id: string;
  company_id: string;
  name: string;
  predial_url: string | null;
  predial_secret: string | null;
  timezone: string;
  hours: string;
  local_window: string;
  max_attempts: number;
  retry_delay_ms: number;
  concurrency: number;
  provider: string;
  provider_url: string | null;
  simulate_success: number;
  created_at: number;
}

export interface ApiKeyTable {
  id: string;
  company_id: string;
  campaign_id: string | null;
  name: string;
  scope: 'read' | 'write';
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface LeadTable {
  /** keyset for pagination: creation order, never reused (AUTOINCREMENT / identity) */
  seq: Generated<number>;
  id: string;
  campaign_id: string;
  phone_number: string | null;
  external_id: string | null;
  /** the metadata object as JSON text, exactly as given */
  metadata: string;
  status: 'raw' | 'attempting' | 'exhausted' | 'concluded';
  /** ISO 8601 UTC (toISOString form), so that text order is time order */
  scheduled_for: string | null;
  priority: number;
  attempts: number;
  created_at: number;
}

export interface Database {
  companies: CompanyTable;
  campaigns: CampaignTable;
  api_keys: ApiKeyTable;
  leads: LeadTable;
}
