/**
 * Group commit: the first item is written at once; items that arrive while
 * that write is in flight wait for it and go together in the next. Nothing
 * waits on a timer, so a quiet worker writes each item immediately and a busy
 * one writes them in batches. With short calls the database spends more on
 * each tiny transaction than on the rows themselves: the dialer writes its
 * attempts' openings and closings this way.
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
