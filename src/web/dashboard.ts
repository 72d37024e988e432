/**
 * What the dashboard pages show and do, for one company at a time. Every
 * method takes the signed-in user's companyId first and answers 404 for
 * anything outside it, so a tampered URL finds nothing and changes nothing.
 * Routes go through this class only; it goes through the services and the store.
 */
import { createKey, DEFAULT_MAX_KEYS_PER_COMPANY, type KeySummary, listKeys, revokeKey } from '../auth/service.js';
import { createCampaign, deleteCampaign, updateCampaign } from '../campaigns/service.js';
import { type Secrets, secretsFor } from '../crypto/secrets.js';
import type { CampaignSettings } from '../campaigns/settings.js';
import { AppError, MESSAGES } from '../errors.js';
import { LEAD_STATUSES, type LeadStatus } from '../leads/lifecycle.js';
import { type Access, LeadService } from '../leads/service.js';
import type { CampaignRow } from '../store/campaigns.js';
import { liveDialers } from '../dialer/heartbeat.js';
import { type NextUpLead, nextUp } from '../dialer/next-up.js';
import type { Store } from '../store/index.js';
import type { LeadRow } from '../store/leads.js';
import { createUser, type IssuedPassword, listUsers, removeUser, resetPassword } from './accounts.js';
import { campaignName } from './campaign-form.js';
import { type Activity, activity, type LeadDialerView, leadDialer, recycle } from './activity.js';
import { DncDesk } from './dnc.js';
import { storable } from '../storable.js';
import { WebhookDesk } from './webhooks.js';

export type Counts = Record<LeadStatus, number> & { total: number };
export interface CampaignSummary {
  campaign: CampaignRow;
  counts: Counts;
}

export interface LeadView {
  id: string;
  phoneNumber: string | null;
  externalId: string | null;
  status: LeadStatus;
  priority: number;
  attempts: number;
  /** attempts granted by recycling beyond the campaign's maximum */
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
  /** cursor of the previous page: null when it is the first page, undefined on the first page itself */
  previous?: string | null;
}

const PAGE_SIZE = 50;
/** the longest identifier a lead can have (an externalId, schemas.ts) */
const MAX_SEARCH = 255;
const notFound = () => new AppError('not_found', MESSAGES.notFound);
const emptyCounts = (): Counts => ({ raw: 0, attempting: 0, exhausted: 0, concluded: 0, total: 0 });
/** a dashboard user reaches every campaign of their company */
const companyWide = (companyId: string): Access => ({ companyId, campaignId: null });

export class Dashboard {
  private readonly leads: LeadService;
  /** Company settings → Do-not-call list */
  readonly dnc: DncDesk;
  /** Company settings → Webhooks */
  readonly webhooks: WebhookDesk;

  constructor(
    private readonly store: Store,
    /** the clock every page reads, injectable for tests */
    readonly now: () => number,
    private readonly maxKeys = DEFAULT_MAX_KEYS_PER_COMPANY,
    /** seals the voice platforms' secrets (SECRET_KEY) */
    private readonly secrets: Secrets = secretsFor(undefined),
  ) {
    this.leads = new LeadService(store, now);
    this.dnc = new DncDesk(store, now);
    this.webhooks = new WebhookDesk(store, now, secrets);
  }

  async campaigns(companyId: string): Promise<CampaignSummary[]> {
    const [rows, counts] = await Promise.all([this.store.campaigns.ofCompany(companyId), this.store.leads.statusCounts(companyId)]);
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
    for (const c of await this.store.leads.statusCounts(companyId, campaignId)) {
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

  /** an id that no row can hold (a NUL, which PostgreSQL cannot even compare) is not found, without a query */
  async campaign(companyId: string, campaignId: string): Promise<CampaignRow> {
    if (!storable(campaignId)) throw notFound();
    const row = await this.store.campaigns.byId(campaignId);
    if (!row || row.company_id !== companyId) throw notFound();
    return row;
  }

  /** name and settings come from campaign-form.ts; createCampaign and updateCampaign check how they combine */
  async createCampaign(companyId: string, name: string | undefined, settings: CampaignSettings): Promise<string> {
    return (await createCampaign(this.store, { companyId, name: campaignName(name ?? ''), ...settings }, this.now(), this.secrets))
      .campaignId;
  }

  /** a name renames the campaign */
  async updateCampaign(companyId: string, campaignId: string, settings: CampaignSettings, name?: string): Promise<void> {
    await this.campaign(companyId, campaignId);
    await updateCampaign(this.store, campaignId, settings, this.secrets, name);
  }

  /** the campaign with its leads, their attempts and the keys restricted to it; the number of leads deleted */
  async deleteCampaign(companyId: string, campaignId: string): Promise<number> {
    await this.campaign(companyId, campaignId);
    return deleteCampaign(this.store, campaignId);
  }

  /** the keys restricted to a campaign, which are deleted with it */
  async campaignKeys(companyId: string, campaignId: string): Promise<number> {
    return (await listKeys(this.store, companyId)).filter((k) => k.campaignId === campaignId && k.status === 'active').length;
  }

  /** a page of leads through the same service (cursor, order, filter) as GET /api/v1/leads */
  async leadsPage(companyId: string, campaignId: string, o: { status?: LeadStatus; cursor?: string }): Promise<LeadsPage> {
    await this.campaign(companyId, campaignId);
    const page = await this.leads.rows(companyWide(companyId), { campaignId, status: o.status, cursor: o.cursor, limit: PAGE_SIZE });
    const cursors = await this.leads.cursors();
    const after = o.cursor === undefined ? null : cursors.decode(campaignId, o.cursor);
    // the page before this one: a keyset cursor only goes forward, so walk the index back one page
    const before = after === null ? undefined : await this.store.leads.pageStartBefore(campaignId, o.status, after, PAGE_SIZE);
    const previous = before === undefined ? undefined : before === null ? null : cursors.encode(campaignId, before);
    return { leads: page.leads.map(view), next: page.hasMore ? page.cursor : null, previous };
  }

  /** whether `cursor` is one of the campaign's list cursors */
  async isCursor(campaignId: string, cursor: string): Promise<boolean> {
    return (await this.leads.cursors()).decode(campaignId, cursor) !== null;
  }

  /** the campaign's leads whose phone number or externalId starts or ends with `text` (LeadStore.search) */
  async search(companyId: string, campaignId: string, text: string): Promise<{ leads: LeadView[]; more: boolean }> {
    await this.campaign(companyId, campaignId);
    if (Array.from(text).length > MAX_SEARCH || !storable(text)) {
      throw new AppError(
        'validation',
        `Search for part of a phone number or external id: at most ${MAX_SEARCH} characters, none of them control characters.`,
      );
    }
    const found = await this.store.leads.search(campaignId, text, PAGE_SIZE);
    return { leads: found.leads.map(view), more: found.more };
  }

  async lead(companyId: string, campaignId: string, leadId: string): Promise<{ campaign: CampaignRow; lead: LeadView }> {
    const campaign = await this.campaign(companyId, campaignId);
    if (!storable(leadId)) throw notFound();
    const row = await this.store.leads.byId(campaign.id, leadId);
    if (!row) throw notFound();
    return { campaign, lead: view(row) };
  }

  /** by the lead's own identifier, through the same service as DELETE /api/v1/leads */
  async deleteLead(companyId: string, campaignId: string, leadId: string): Promise<void> {
    const { lead } = await this.lead(companyId, campaignId, leadId);
    const by = lead.externalId !== null ? { externalId: lead.externalId } : { phoneNumber: lead.phoneNumber! };
    await this.leads.deleteOne(companyWide(companyId), { campaignId, ...by }).catch((err) => {
      throw err instanceof AppError && err.code === 'not_found' ? notFound() : err;
    });
  }

  /** calls today and the last attempts of the company's campaigns */
  activity(campaigns: readonly CampaignRow[]): Promise<Activity> {
    return activity(this.store, campaigns, this.now());
  }

  /** the leads the campaign's dialer takes next, in order, with why each held back is (read-only) */
  async nextUp(companyId: string, campaignId: string): Promise<{ campaign: CampaignRow; leads: NextUpLead[]; now: number; limit: number }> {
    const campaign = await this.campaign(companyId, campaignId);
    const now = this.now();
    return { campaign, leads: await nextUp(this.store, campaign, now, PAGE_SIZE), now, limit: PAGE_SIZE };
  }

  /** one lead's attempts and why it is (not) being called */
  leadDialer(campaign: CampaignRow, lead: LeadView): Promise<LeadDialerView> {
    return leadDialer(this.store, campaign, lead, this.now());
  }

  recycle(campaign: CampaignRow): Promise<number> {
    return recycle(this.store, campaign);
  }

  /** the running dialers that serve any of these campaigns: whether calling happens at all */
  async dialers(campaignIds: readonly string[]): Promise<{ running: number; lastClaimAt: number | null }> {
    const live = await liveDialers(this.store, this.now(), campaignIds);
    const claims = live.map((d) => d.last_claim_at ?? 0);
    return { running: live.length, lastClaimAt: Math.max(0, ...claims) || null };
  }

  async keys(companyId: string): Promise<(KeySummary & { campaignName: string | null })[]> {
    const [keys, campaigns] = await Promise.all([listKeys(this.store, companyId), this.store.campaigns.ofCompany(companyId)]);
    const names = new Map(campaigns.map((c) => [c.id, c.name]));
    return keys.reverse().map((k) => ({ ...k, campaignName: k.campaignId === null ? null : (names.get(k.campaignId) ?? k.campaignId) }));
  }

  async createKey(companyId: string, form: { name?: string; scope?: string; campaignId?: string }) {
    const name = (form.name ?? '').trim();
    if (name === '' || name.length > 100) throw new AppError('validation', 'Give the key a name of 1 to 100 characters.');
    if (!storable(name)) throw new AppError('validation', 'The key name holds a character that cannot be stored.');
    if (form.scope !== 'read' && form.scope !== 'write') throw new AppError('validation', 'Choose a scope.');
    const campaignId = form.campaignId ? (await this.campaign(companyId, form.campaignId)).id : null;
    return createKey(this.store, { companyId, name, scope: form.scope, campaignId }, this.now(), this.maxKeys);
  }

  async key(companyId: string, keyId: string) {
    const key = (await this.keys(companyId)).find((k) => k.keyId === keyId);
    if (!key) throw notFound();
    return key;
  }

  async revokeKey(companyId: string, keyId: string): Promise<void> {
    await this.key(companyId, keyId);
    await revokeKey(this.store, keyId, this.now());
  }

  users(companyId: string) {
    return listUsers(this.store, companyId);
  }

  async user(companyId: string, userId: string) {
    const user = (await this.users(companyId)).find((u) => u.userId === userId);
    if (!user) throw notFound();
    return user;
  }

  /** a one-time password, shown once, as `leadline user create` prints it */
  addUser(companyId: string, email: string): Promise<IssuedPassword> {
    return createUser(this.store, { companyId, email }, this.now());
  }

  async resetUser(companyId: string, userId: string): Promise<IssuedPassword> {
    return resetPassword(this.store, (await this.user(companyId, userId)).email, this.now());
  }

  removeUser(companyId: string, userId: string): Promise<void> {
    return removeUser(this.store, companyId, userId).catch((err) => {
      throw err instanceof AppError && err.code === 'not_found' ? notFound() : err;
    });
  }
}

const view = (r: LeadRow): LeadView => ({
  id: r.id,
  phoneNumber: r.phone_number,
  externalId: r.external_id,
  status: r.status,
  priority: r.priority,
  attempts: r.attempts,
  extraAttempts: r.extra_attempts,
  scheduledFor: r.scheduled_for,
  createdAt: r.created_at,
  metadata: r.metadata,
});
