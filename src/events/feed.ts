/**
 * Reading the events as messages: the rows of the outbox (one per change)
 * expanded into one message per item, in the Standard Webhooks payload shape
 * `{type, timestamp, data}`, each with the id it keeps for ever (the
 * `webhook-id` of every try, and the pull API's `id`). Phone numbers are read
 * from the leads when the message is made, never stored in the events, so a
 * deleted lead's events carry none (docs/events.md "Privacy").
 */
import type { EventItem, EventRow, EventScope, EventType, Position } from '../store/events.js';
import type { Store } from '../store/index.js';
import { eventIds } from './ids.js';

export interface EventMessage {
  /** `evt_` and 22 opaque characters (src/events/ids.ts): the same on every try and every read */
  id: string;
  type: EventType;
  /** ISO 8601, when the change committed */
  timestamp: string;
  data: Record<string, unknown>;
}

interface FeedPage {
  messages: EventMessage[];
  /** the position after each message */
  after: Position[];
  /** where the next read starts: after the last message, or `from` when there was none */
  next: Position;
  hasMore: boolean;
}

const ATTEMPT_FIELDS = ['attemptId', 'attempt', 'outcome', 'success', 'reason', 'numberDialled', 'durationSeconds'] as const;

function data(row: EventRow, item: EventItem, numbers: Awaited<ReturnType<Store['events']['numbers']>>): Record<string, unknown> {
  const base: Record<string, unknown> = { leadId: item.leadId ?? null, campaignId: row.campaign_id, externalId: item.externalId ?? null };
  const out: Record<string, unknown> = { ...base, ...item };
  if (row.type === 'lead.created') out.phoneNumber = numbers.leads.get(String(item.leadId)) ?? null;
  if (row.type === 'attempt.started' || row.type === 'attempt.finished') {
    for (const f of ATTEMPT_FIELDS) out[f] ??= null;
    out.numberDialled = numbers.attempts.get(String(item.attemptId)) ?? null;
  }
  return out;
}

/** up to `limit` messages of the scope after the position, oldest first */
export async function readFeed(store: Store, scope: EventScope, from: Position, limit: number): Promise<FeedPage> {
  // limit + 2 rows: the first may be the cursor's own row with nothing left
  // unread, and every other row holds at least one item (an empty append writes
  // none), so limit + 1 more rows hold an item past the page whenever one is
  // readable. With limit + 1, a read-out cursor row plus `limit` one-item rows
  // filled the page exactly and hasMore said false while events followed.
  const rows = await store.events.feed(scope, from, limit + 2);
  const picked: { row: EventRow; index: number; item: EventItem }[] = [];
  let next = from;
  let hasMore = false;
  outer: for (const row of rows) {
    const items = JSON.parse(row.items) as EventItem[];
    const start = row.tx === from.tx && row.id === from.id ? from.n : 0;
    for (let i = start; i < items.length; i++) {
      if (picked.length === limit) {
        hasMore = true;
        break outer;
      }
      picked.push({ row, index: i, item: items[i]! });
      next = { tx: row.tx, id: row.id, n: i + 1 };
    }
  }
  const leadIds = picked.filter((p) => p.row.type === 'lead.created').map((p) => String(p.item.leadId));
  const attemptIds = picked.filter((p) => p.row.type.startsWith('attempt.')).map((p) => String(p.item.attemptId));
  const numbers = await store.events.numbers([...new Set(leadIds)], [...new Set(attemptIds)]);
  const ids = await eventIds(store);
  const messages = picked.map(({ row, index, item }) => ({
    id: ids.of(row.id, index),
    type: row.type,
    timestamp: new Date(row.created_at).toISOString(),
    data: data(row, item, numbers),
  }));
  const after = picked.map(({ row, index }) => ({ tx: row.tx, id: row.id, n: index + 1 }));
  return { messages, after, next, hasMore };
}
