/**
 * The one retry loop for statements that lost a race with another writer.
 * PostgreSQL aborts one side of a deadlock (40P01) or of a serialization
 * conflict (40001); running the loser again is always safe, because it was
 * rolled back whole. SQLite never needs it: BEGIN IMMEDIATE takes the write
 * lock up front and busy_timeout waits for it, so there is nothing to retry.
 */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 3;

const isRetryable = (err: unknown): boolean => RETRYABLE.has(String((err as { code?: unknown })?.code));

export async function retrying<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= ATTEMPTS || !isRetryable(err)) throw err;
    }
  }
}
