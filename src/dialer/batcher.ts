/**
 * Group commit: the items added while the event loop runs one task (a claim's
 * leads reach their openings together, the calls a timer ends reach their
 * closings together) are written in one batch once that task is over; items
 * that arrive while that write is in flight wait for it and go together in the
 * next. Nothing waits on a timer, so a quiet worker writes each item at once
 * (setImmediate: as soon as the current task and its promise jobs are done)
 * and a busy one writes them in batches. With short calls the database spends
 * more on each tiny transaction than on the rows themselves: the dialer writes
 * its attempts' openings and closings this way. Writing the first item the
 * moment it was added made every claim's openings two transactions, one of a
 * single lead (bench row 7).
 */
interface Pending<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (err: unknown) => void;
}

export class Batcher<I, O> {
  private queue: Pending<I, O>[] = [];
  private writing = false;

  constructor(
    /** writes a batch; one result per item, in order */
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
  ) {}

  add(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.write(batch.map((p) => p.item));
          batch.forEach((p, i) => {
            p.resolve(results[i]!);
          });
        } catch (err) {
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
