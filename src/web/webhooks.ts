/**
 * Company settings → Webhooks, the data side: the functions `leadline
 * webhook` uses (src/webhooks/service.ts), with the signed-in user's company
 * passed to each, so another company's endpoint is a 404 and is not touched.
 * Secrets are sealed with SECRET_KEY exactly as the CLI seals them; the URL
 * meets the outbound policy where the CLI's does, at each delivery.
 */
import { perStore, ScopedCursors } from '../crypto/cursor-cipher.js';
import type { Secrets } from '../crypto/secrets.js';
import { AppError, MESSAGES, validation } from '../errors.js';
import { EVENT_TYPES } from '../store/events.js';
import type { Store } from '../store/index.js';
import {
  createWebhook,
  deleteWebhook,
  deliveryPage,
  enableWebhook,
  listWebhooks,
  rotateSecret,
  type WebhookSummary,
} from '../webhooks/service.js';
import { storable } from '../storable.js';

const PAGE_SIZE = 50;
const codecs = new WeakMap<Store, Promise<ScopedCursors>>();
const cursors = (store: Store) => perStore(codecs, store, (key) => new ScopedCursors(key, 'delivery cursor', 'webhook'));

export type WebhookView = WebhookSummary & { campaignName: string | null };

/**
 * A refused URL: the service's message ("url: …") shown on the URL field.
 * The form cannot name an unknown event type (there is a checkbox per known
 * one) nor another company's campaign (only the company's are offered).
 */
export class WebhookFormError extends Error {
  readonly field = 'url' as const;
}

/** the ticked event types: one checkbox each (`event.<type>`), since a form field given twice keeps only its last value */
export const eventField = (type: string) => `event.${type}`;
const tickedEvents = (f: Record<string, string | undefined>) => EVENT_TYPES.filter((t) => f[eventField(t)] !== undefined);
const notFound = () => new AppError('not_found', MESSAGES.notFound);
/** an id no row can hold (a NUL, which PostgreSQL cannot even compare) is not found, without a query */
const known = (id: string): string => {
  if (!storable(id)) throw notFound();
  return id;
};

export class WebhookDesk {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
    private readonly secrets: Secrets,
  ) {}

  async list(companyId: string): Promise<WebhookView[]> {
    const [hooks, campaigns] = await Promise.all([listWebhooks(this.store, companyId), this.store.campaigns.ofCompany(companyId)]);
    const names = new Map(campaigns.map((c) => [c.id, c.name]));
    return hooks.map((h) => ({ ...h, campaignName: h.campaignId === null ? null : (names.get(h.campaignId) ?? h.campaignId) }));
  }

  async one(companyId: string, webhookId: string): Promise<WebhookView> {
    const hook = (await this.list(companyId)).find((h) => h.webhookId === webhookId);
    if (!hook) throw notFound();
    return hook;
  }

  /** the new endpoint and its secret, to be shown once */
  async create(companyId: string, f: Record<string, string | undefined>) {
    const campaignId = f.campaignId ? known(f.campaignId) : null;
    try {
      return await createWebhook(
        this.store,
        { companyId, url: (f.url ?? '').trim(), events: tickedEvents(f), campaignId },
        this.now(),
        this.secrets,
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'validation' && err.message.startsWith('url: ')) throw new WebhookFormError(err.message.slice('url: '.length));
      // a forged form's campaign of another company: as any other id of another company
      if (err.code === 'not_found' && campaignId) throw notFound();
      throw err;
    }
  }

  delete(companyId: string, webhookId: string): Promise<void> {
    return deleteWebhook(this.store, known(webhookId), companyId);
  }

  rotate(companyId: string, webhookId: string) {
    return rotateSecret(this.store, known(webhookId), companyId, this.secrets);
  }

  enable(companyId: string, webhookId: string): Promise<void> {
    return enableWebhook(this.store, known(webhookId), companyId, this.now());
  }

  /**
   * `before`: the cursor a previous page gave as its next, bound to this endpoint (anything else
   * is a 400). It holds a try's id, a position in the tries of every company: shown plainly, a
   * user could probe it (which of their own tries lie below any number) and count the other
   * companies' deliveries between two of theirs.
   */
  async deliveries(companyId: string, webhookId: string, o: { failedOnly: boolean; before?: string }) {
    const codec = await cursors(this.store);
    const before = o.before === undefined ? undefined : codec.decode(webhookId, o.before);
    if (before === null) throw validation('Invalid cursor');
    const page = await deliveryPage(this.store, webhookId, { companyId, failedOnly: o.failedOnly, before, limit: PAGE_SIZE });
    return { tries: page.tries, next: page.next === null ? null : codec.encode(webhookId, page.next) };
  }
}
