/**
 * Webhook delivery (docs/events.md "Delivery"), run by `leadline serve`:
 * each round leases the endpoints that are due (SKIP LOCKED on PostgreSQL,
 * so instances take different ones), and for each sends its events in order
 * from its position, one at a time, signed by the Standard Webhooks scheme
 * with the event's id as `webhook-id`. The position moves only after a 2xx is
 * recorded, so a crash re-sends (at least once, the same webhook-id) and
 * never skips. A failure stops the endpoint's round and schedules the same
 * message again by RETRY_DELAYS_MS; after the last delay it is given up (the
 * log says so; `webhook replay` sends it again). An endpoint failing for
 * three days in a row is disabled.
 *
 * Before a message the round reads the endpoint's secret and generation
 * again when RECHECK_MS has passed since it last did: a rotated secret signs
 * from then on, and a replay (which bumps the generation) or a deletion ends
 * the round. Its settle writes only in the generation it
 * leased, so a replay that lands while a message is in flight is kept too.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { type Secrets, secretsFor } from '../crypto/secrets.js';
import { signedPost } from '../dialer/signed-post.js';
import { readFeed } from '../events/feed.js';
import type { OutboundPolicy } from '../net/outbound.js';
import type { EventType } from '../store/events.js';
import type { Store } from '../store/index.js';
import type { NewDelivery, Settlement, WebhookRow } from '../store/webhooks.js';
import { webhookSecret } from './service.js';

const S = 1000;
const H = 3600 * S;
/** the wait after the 1st, 2nd, … failed try of one message: 8 tries over about 27.6 hours */
const RETRY_DELAYS_MS = [5 * S, 5 * 60 * S, 30 * 60 * S, 2 * H, 5 * H, 10 * H, 10 * H] as const;
const DISABLE_AFTER_MS = 72 * H;
/** a 2xx within this is success */
const TIMEOUT_MS = 15 * S;
/** the lease outlives a round (ROUND_MS and one timeout at most): settling every SETTLE_MS renews it too */
const LEASE_MS = 60 * S;
const SETTLE_MS = 5 * S;
const ROUND_MS = 20 * S;
const PAGE = 100;
/**
 * A round reads the endpoint's secret and generation again before a message
 * once this long has passed since it last did: a rotation, a replay or a
 * deletion takes effect within it. Read before every message, the one
 * primary-key query cut delivery on PostgreSQL from 2,241 to 882 events a
 * second (bench row 12); once per 50 ms it is a query per hundred messages.
 * A message signed with the old secret meanwhile is refused by a receiver
 * that switched, and sent again with the new one.
 */
const RECHECK_MS = 50;
const ENDPOINTS_PER_ROUND = 20;
const PRUNE_EVERY_MS = H;
const PRUNE_CHUNK = 5000;

export interface DelivererOptions {
  store: Store;
  /** this process, as lease owner */
  owner: string;
  outbound: OutboundPolicy;
  logger: Logger;
  /** EVENT_RETENTION: events and tries older than this are pruned */
  retentionMs: number;
  pollMs?: number;
  now?: () => number;
  /** opens endpoint secrets sealed with SECRET_KEY; default: stored as given */
  secrets?: Secrets;
  /** how long a round may go on sending with the endpoint's secret and generation as last read (RECHECK_MS) */
  recheckMs?: number;
  /** how long one endpoint's share of a round may go on sending (ROUND_MS) */
  roundMs?: number;
}

/**
 * Deletes in statements of PRUNE_CHUNK rows, yielding between them: the first prune after a long
 * stop, or after EVENT_RETENTION was shortened, may have millions of rows to delete, and one
 * statement would hold SQLite's write lock (and, in-process, the API) for as long.
 */
async function inChunks(chunk: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await chunk(PRUNE_CHUNK);
    total += n;
    if (n < PRUNE_CHUNK) return total;
    await new Promise((r) => setImmediate(r));
  }
}

/** a delay with ±10% jitter, so endpoints that failed together do not retry together */
const jittered = (ms: number) => Math.round(ms * (0.9 + Math.random() * 0.2));

export class WebhookDeliverer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private readonly abort = new AbortController();
  private lastPrune = 0;
  private readonly now: () => number;

  constructor(private readonly o: DelivererOptions) {
    this.now = o.now ?? Date.now;
  }

  start(): void {
    const tick = () => {
      this.running = this.round()
        .catch((err) => this.o.logger.error({ err }, 'webhook delivery round failed'))
        .finally(() => {
          if (!this.abort.signal.aborted) this.timer = setTimeout(tick, this.o.pollMs ?? 1000);
        });
    };
    tick();
  }

  /** stops after the requests in flight are cut short; their messages stay unsent and are sent again later */
  async stop(): Promise<void> {
    this.abort.abort();
    clearTimeout(this.timer);
    await this.running;
  }

  /** one pass: lease the due endpoints and deliver to each; the messages sent successfully */
  async round(): Promise<number> {
    const now = this.now();
    if (now - this.lastPrune >= PRUNE_EVERY_MS) await this.prune(now);
    const due = await this.o.store.webhooks.claim(this.o.owner, now, LEASE_MS, ENDPOINTS_PER_ROUND);
    const sent = await Promise.all(due.map((w) => this.deliver(w)));
    return sent.reduce((a, b) => a + b, 0);
  }

  private async prune(now: number): Promise<void> {
    this.lastPrune = now;
    const before = now - this.o.retentionMs;
    const events = await inChunks((n) => this.o.store.events.prune(before, n));
    const tries = await inChunks((n) => this.o.store.webhooks.pruneDeliveries(before, n));
    if (events + tries > 0) this.o.logger.info({ events, tries }, 'pruned events and webhook tries past EVENT_RETENTION');
  }

  private async deliver(w: WebhookRow): Promise<number> {
    const { store, owner } = this.o;
    const scope = {
      companyId: w.company_id,
      campaignId: w.campaign_id,
      types: w.event_types === '' ? null : (w.event_types.split(',') as EventType[]),
    };
    const state: Settlement = {
      position: { tx: w.pos_tx, id: w.pos_id, n: w.pos_n },
      tries: w.tries,
      nextTryAt: this.now(),
      failingSince: w.failing_since,
      deliveries: [],
    };
    const log: NewDelivery[] = [];
    let sent = 0;
    let lastSettle = performance.now();
    const started = lastSettle;
    const roundMs = this.o.roundMs ?? ROUND_MS;
    const settle = async () => {
      lastSettle = performance.now();
      const outcome = await store.transaction((tx) =>
        tx.webhooks.settle(w.id, owner, w.generation, { ...state, deliveries: log.splice(0) }, this.now() + LEASE_MS),
      );
      if (outcome === 'lost') this.o.logger.warn({ webhookId: w.id }, 'webhook lease lost; another instance delivers to it');
      if (outcome === 'moved') this.o.logger.info({ webhookId: w.id }, 'webhook replayed during a round; the next round starts there');
      return outcome === 'settled';
    };
    const secrets = this.o.secrets ?? secretsFor(undefined);
    // the secret opened once per stored value, not per message
    let sealed = w.secret;
    let secret = webhookSecret(w, secrets);
    let checked = Number.NEGATIVE_INFINITY;
    try {
      for (;;) {
        const page = await readFeed(store, scope, state.position, PAGE);
        if (page.messages.length === 0) break;
        let failed = false;
        let moved = false;
        for (let i = 0; i < page.messages.length && !this.abort.signal.aborted; i++) {
          const { id, type, timestamp, data } = page.messages[i]!;
          if (performance.now() - checked >= (this.o.recheckMs ?? RECHECK_MS)) {
            const current = await store.webhooks.sending(w.id);
            checked = performance.now();
            if (current?.generation !== w.generation) {
              moved = true; // replayed or deleted: what this round holds in memory is no longer the endpoint's
              break;
            }
            if (current.secret !== sealed) {
              sealed = current.secret;
              secret = webhookSecret({ id: w.id, secret: sealed }, secrets);
            }
          }
          const t0 = performance.now();
          const at = this.now();
          const res = await signedPost({
            url: w.url,
            body: { type, timestamp, data },
            secret,
            timeoutMs: TIMEOUT_MS,
            webhookId: id,
            answer: 'any',
            legacySignature: false,
            outbound: this.o.outbound,
            signal: this.abort.signal,
          });
          if (this.abort.signal.aborted) break; // cut short by stop(): not a try of the endpoint
          const latency = Math.round(performance.now() - t0);
          const status = res.ok ? res.status : (res.status ?? null);
          state.tries += 1;
          log.push({
            webhook_id: w.id,
            message_id: id,
            event_type: type,
            try: state.tries,
            ok: res.ok ? 1 : 0,
            status_code: status,
            latency_ms: latency,
            error: res.ok ? null : res.reason,
            created_at: at,
          });
          if (res.ok) {
            sent++;
            state.position = page.after[i]!;
            state.tries = 0;
            state.failingSince = null;
          } else {
            failed = true;
            state.failingSince ??= at;
            const delay = RETRY_DELAYS_MS[state.tries - 1];
            if (delay === undefined) {
              // the last try of this message: give it up and go on with the next one, later
              log[log.length - 1]!.error = `${res.reason}; given up after ${state.tries} tries`;
              state.position = page.after[i]!;
              state.tries = 0;
            }
            state.nextTryAt = at + jittered(delay ?? RETRY_DELAYS_MS[0]);
            if (at - state.failingSince >= DISABLE_AFTER_MS) {
              state.disabled = { at, reason: `failing since ${new Date(state.failingSince).toISOString()}: ${res.reason}` };
              this.o.logger.warn({ webhookId: w.id, reason: state.disabled.reason }, 'webhook endpoint disabled');
            }
            break;
          }
          if (performance.now() - lastSettle >= SETTLE_MS && !(await settle())) return sent;
          // The round ends after its time, between two messages: the instance claims nothing until
          // every endpoint of the round is done, so a receiver answering 2xx slowly (up to the
          // 15 s timeout each) would otherwise hold up every other endpoint for a whole page.
          if (performance.now() - started >= roundMs) break;
        }
        if (failed || moved || this.abort.signal.aborted || !page.hasMore || performance.now() - started >= roundMs) break;
      }
      // an idle endpoint's row is left as it was: only the lease is given back; a
      // replayed one keeps the replay's position (settle logs the tries only)
      if (log.length > 0 || state.disabled) await settle();
      return sent;
    } finally {
      await store.webhooks.release(w.id, owner, this.now()).catch(() => undefined);
    }
  }
}
