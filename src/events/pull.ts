/**
 * GET /api/v1/events: the events for those who cannot receive webhooks.
 * Scope rules as for listing leads: a key reads its company's events, a
 * campaign-restricted key only its campaign's (and without campaignId it
 * reads that campaign); a campaign of another company is not found.
 */
import { AppError, MESSAGES, validation } from '../errors.js';
import type { Access } from '../leads/service.js';
import type { Store } from '../store/index.js';
import { eventCursors } from './cursor.js';
import { type EventMessage, readFeed } from './feed.js';

export const DEFAULT_EVENTS_PAGE = 100;
export const MAX_EVENTS_PAGE = 1000;

export interface EventsQuery {
  campaignId?: string;
  after?: string;
  limit?: string;
}

interface EventsPage {
  events: EventMessage[];
  count: number;
  cursor: string;
  hasMore: boolean;
}

export async function listEvents(store: Store, p: Access, q: EventsQuery): Promise<EventsPage> {
  // validation before campaign access (docs/api.md, "Order of checks"), as listing leads does:
  // a bad cursor is 400 whichever campaign it names
  const cursors = await eventCursors(store);
  const from = q.after === undefined ? { tx: 0, id: 0, n: 0 } : cursors.decode(q.after);
  if (from === null) throw validation(MESSAGES.invalidCursor);
  const campaignId = q.campaignId ?? p.campaignId;
  if (campaignId !== null) {
    if (p.campaignId !== null && p.campaignId !== campaignId) throw new AppError('not_found', MESSAGES.campaignNotFound);
    const campaign = await store.campaigns.byId(campaignId);
    if (!campaign || campaign.company_id !== p.companyId) throw new AppError('not_found', MESSAGES.campaignNotFound);
  }
  const limit = Math.min(q.limit === undefined ? DEFAULT_EVENTS_PAGE : Number(q.limit), MAX_EVENTS_PAGE);
  const page = await readFeed(store, { companyId: p.companyId, campaignId, types: null }, from, limit);
  return { events: page.messages, count: page.messages.length, cursor: cursors.encode(page.next), hasMore: page.hasMore };
}
