/**
 * What the dashboard pages show and do, for one company at a time. Every
 * method takes the signed-in user's companyId first and answers 404 for
 * anything outside it, so a tampered URL finds nothing and changes nothing.
 */
import { createKey, listKeys, revokeKey, type KeySummary } from '../auth/service.js';
import type { Principal } from '../auth/principal.js';
import { createCampaign, updateCampaign } from '../campaigns/service.js';
import { type CampaignSettings, SettingsError } from '../campaigns/settings.js';
import type { Db } from '../db/index.js';
import type { CampaignTable } from '../db/schema.js';
import { AppError, MESSAGES } from '../errors.js';
import { deleteOne } from '../leads/repository.js';
import { LEAD_STATUSES, type LeadStatus } from '../leads/schemas.js';
import { LeadService } from '../leads/service.js';
import * as repo from './dashboard-repository.js';

export type Counts = Record<LeadStatus, number> & { total: number };
export interface CampaignSummary {
  campaign: CampaignTable;
  counts: Counts;
}

export interface LeadView {
  id: string;
  phoneNumber: string | null;
  externalId: string | null;
  status: LeadStatus;
  priority: number;
  attempts: number;
  /** attempts granted by recycling beyond the campaign's maximum (lead page only) */
  extraAttempts: number;
  scheduledFor: string | null;
  createdAt: number;
  /** JSON text */
  metadata: string;
}

export interface LeadsPage {
  leads: LeadView[];
  /** cursor of the next page, when there is one */
  next: string | null;
}

export const PAGE_SIZE = 50;
const notFound = () => new AppError('not_found', MESSAGES.notFound);
const emptyCounts = (): Counts => ({ raw: 0, attempting: 0, exhausted: 0, concluded: 0, total: 0 });

export const isLeadStatus = (s: unknown): s is LeadStatus => (LEAD_STATUSES as readonly unknown[]).includes(s);

export class Dashboard {
  private readonly leads: LeadService;

  constructor(
    readonly db: Db,
    /** the clock every page reads, injectable for tests */
    readonly now: () => number,
  ) {
    this.leads = new LeadService(db, now);
  }

  async campaigns(companyId: string): Promise<CampaignSummary[]> {
    const [rows, counts] = await Promise.all([
      repo.campaignsOf(this.db.kysely, companyId),
      repo.statusCounts(this.db.kysely, companyId),
    ]);
    const byId = new Map(rows.map((campaign) => [campaign.id, { campaign, counts: emptyCounts() }]));
    for (const c of counts) {
      const entry = byId.get(c.campaign_id);
      if (!entry) continue;
      entry.counts[c.status] += c.n;
      entry.counts.total += c.n;
    }
    return [...byId.values()];
  }

  async counts(companyId: string, campaignId: string): Promise<Counts> {
    const counts = emptyCounts();
    for (const c of await repo.statusCounts(this.db.kysely, companyId, campaignId)) {
      counts[c.status] += c.n;
      counts.total += c.n;
    }
    return counts;
  }

  /** the company's totals across campaigns */
  static totals(campaigns: readonly CampaignSummary[]): Counts {
    const t = emptyCounts();
    for (const { counts } of campaigns) for (const k of [...LEAD_STATUSES, 'total'] as const) t[k] += counts[k];
    return t;
  }

  async campaign(companyId: string, campaignId: string): Promise<CampaignTable> {
    const row = await repo.campaignOf(this.db.kysely, companyId, campaignId);
    if (!row) throw notFound();
    return row;
  }

  /** settings come from campaign-form.ts; createCampaign and updateCampaign check how they combine */
  async createCampaign(companyId: string, name: string, settings: CampaignSettings): Promise<string> {
    const trimmed = name.trim();
    if (trimmed === '' || trimmed.length > 200) throw new SettingsError('Give the campaign a name of 1 to 200 characters');
    return (await createCampaign(this.db, { companyId, name: trimmed, ...settings }, this.now())).campaignId;
  }

  async updateCampaign(companyId: string, campaignId: string, settings: CampaignSettings): Promise<void> {
    await this.campaign(companyId, campaignId);
    await updateCampaign(this.db, campaignId, settings);
  }

  /** a page of leads through the same service (cursor, order, filter) as GET /api/v1/leads */
  async leadsPage(companyId: string, campaignId: string, o: { status?: LeadStatus; cursor?: string }): Promise<LeadsPage> {
    await this.campaign(companyId, campaignId);
    const viewer: Principal = { keyId: 'dashboard', companyId, campaignId: null, scope: 'read' };
    const page = await this.leads.list(viewer, { campaignId, status: o.status, cursor: o.cursor, limit: String(PAGE_SIZE) });
    const leads = (JSON.parse(page.leadsJson) as ApiLead[]).map(fromApi);
    return { leads, next: page.hasMore ? page.cursor : null };
  }

  async search(companyId: string, campaignId: string, value: string): Promise<LeadView[]> {
    await this.campaign(companyId, campaignId);
    const rows = await repo.leadsByIdentifier(this.db.kysely, campaignId, value.trim());
    return rows.map(fromRow);
  }

  async lead(companyId: string, campaignId: string, leadId: string): Promise<{ campaign: CampaignTable; lead: LeadView }> {
    const campaign = await this.campaign(companyId, campaignId);
    const row = await repo.leadOf(this.db.kysely, campaign.id, leadId);
    if (!row) throw notFound();
    return { campaign, lead: fromRow(row) };
  }

  /** by the lead's own identifier, through the same statement as DELETE /api/v1/leads */
  async deleteLead(companyId: string, campaignId: string, leadId: string): Promise<void> {
    const { lead } = await this.lead(companyId, campaignId, leadId);
    const by = lead.externalId !== null ? { externalId: lead.externalId } : { phoneNumber: lead.phoneNumber! };
    if (!(await deleteOne(this.db.kysely, this.db.dialect, campaignId, by))) throw notFound();
  }

  async keys(companyId: string): Promise<(KeySummary & { campaignName: string | null })[]> {
    const [keys, campaigns] = await Promise.all([listKeys(this.db, companyId), repo.campaignsOf(this.db.kysely, companyId)]);
    const names = new Map(campaigns.map((c) => [c.id, c.name]));
    return keys.reverse().map((k) => ({ ...k, campaignName: k.campaignId === null ? null : (names.get(k.campaignId) ?? k.campaignId) }));
  }

  async createKey(companyId: string, form: { name?: string; scope?: string; campaignId?: string }) {
    const name = (form.name ?? '').trim();
    if (name === '' || name.length > 100) throw new AppError('validation', 'Give the key a name of 1 to 100 characters.');
    if (form.scope !== 'read' && form.scope !== 'write') throw new AppError('validation', 'Choose a scope.');
    const campaignId = form.campaignId ? (await this.campaign(companyId, form.campaignId)).id : null;
    return createKey(this.db, { companyId, name, scope: form.scope, campaignId }, this.now());
  }

  async key(companyId: string, keyId: string) {
    const key = (await this.keys(companyId)).find((k) => k.keyId === keyId);
    if (!key) throw notFound();
    return key;
  }

  async revokeKey(companyId: string, keyId: string): Promise<void> {
    await this.key(companyId, keyId);
    await revokeKey(this.db, keyId, this.now());
  }
}

interface ApiLead {
  _id: string;
  phoneNumber?: string;
  externalId?: string;
  metadata: unknown;
  status: LeadStatus;
  scheduledFor?: string;
  priority: number;
  attempts: number;
  _creationTime: number;
}

const fromApi = (l: ApiLead): LeadView => ({
  id: l._id,
  phoneNumber: l.phoneNumber ?? null,
  externalId: l.externalId ?? null,
  status: l.status,
  priority: l.priority,
  attempts: l.attempts,
  extraAttempts: 0,
  scheduledFor: l.scheduledFor ?? null,
  createdAt: l._creationTime,
  metadata: JSON.stringify(l.metadata),
});

const fromRow = (r: repo.LeadRow): LeadView => ({
  id: r.id,
  phoneNumber: r.phone_number,
  externalId: r.external_id,
  status: r.status,
  priority: Number(r.priority),
  attempts: Number(r.attempts),
  extraAttempts: Number(r.extra_attempts ?? 0),
  scheduledFor: r.scheduled_for,
  createdAt: Number(r.created_at),
  metadata: r.metadata,
});
