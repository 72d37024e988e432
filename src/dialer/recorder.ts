/**
 * Group commit for finished calls: the first one is written at once; calls
 * that finish while that write is in flight wait for it and go together in
 * the next. Nothing waits on a timer, so a quiet worker writes each attempt
 * immediately and a busy one writes them in batches.
 */
import type { Store } from '../store/index.js';
import type { AttemptResult, ClaimedLead, PlannedAttempt } from '../store/queue.js';
import { type AttemptRecord, planAttempt } from './attempts.js';

interface Pending {
  plan: PlannedAttempt;
  resolve: (r: AttemptResult) => void;
  reject: (err: unknown) => void;
}

export class AttemptRecorder {
  private queue: Pending[] = [];
  private writing = false;

  constructor(
    private readonly store: Store,
    private readonly maxBatch = 500,
  ) {}

  /** Rejects with LifecycleError (nothing written) when the move is refused. */
  record(lead: ClaimedLead, a: AttemptRecord): Promise<AttemptResult> {
    let plan: PlannedAttempt;
    try {
      plan = planAttempt(lead, a);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ plan, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.store.queue.record(batch.map((p) => p.plan));
          batch.forEach((p, i) => p.resolve(results[i]!));
        } catch (err) {
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
