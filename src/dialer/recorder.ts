/**
 * The worker's writes of its attempts, batched (batcher.ts): an attempt is
 * opened right before its call is placed, and closed when the call is over.
 * Calls started or finished together share one transaction.
 */
import type { Store } from '../store/index.js';
import type { AttemptOpening, AttemptResult, Closing, OpenResult } from '../store/queue.js';
import { Batcher } from './batcher.js';

export class AttemptRecorder {
  private readonly opens: Batcher<AttemptOpening, OpenResult>;
  private readonly closes: Batcher<Closing, AttemptResult>;

  constructor(store: Store, now: () => number, maxBatch = 500) {
    this.opens = new Batcher((batch) => store.queue.open(batch, now()), maxBatch);
    this.closes = new Batcher((batch) => store.queue.close(batch, 'dialer', now()), maxBatch);
  }

  /** writes the attempt, open, if the claim is still held and the lead still there */
  open(opening: AttemptOpening): Promise<OpenResult> {
    return this.opens.add(opening);
  }

  close(closing: Closing): Promise<AttemptResult> {
    return this.closes.add(closing);
  }
}
