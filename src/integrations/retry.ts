/**
 * How import and export survive a busy or briefly unavailable server: a 429
 * waits exactly as long as its Retry-After says (the server promises that a
 * retry then succeeds); a 5xx or a dropped connection is retried with
 * exponential backoff a few times before the command gives up.
 */
export interface RetryOptions {
  /** told before each wait, for the progress display */
  readonly onWait?: (reason: string, ms: number) => void;
  readonly sleep?: (ms: number) => Promise<void>;
  /** attempts for 5xx and network errors (429s do not count) */
  readonly attempts?: number;
  readonly baseDelayMs?: number;
}

export class ServerUnavailableError extends Error {}

const TRANSIENT = new Set([500, 502, 503, 504]);
const MAX_BACKOFF_MS = 30_000;
/** a server that answers 429 this many times in a row is not coming back soon */
const MAX_RATE_LIMITED = 1000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After in ms; falls back to one second when absent or unreadable */
function retryAfterMs(response: Response): number {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000;
}

export async function withRetry<T extends { response: Response }>(call: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const wait = opts.sleep ?? sleep;
  const attempts = opts.attempts ?? 6;
  const base = opts.baseDelayMs ?? 500;
  let failures = 0;
  let limited = 0;
  for (;;) {
    let outcome: T | Error;
    try {
      outcome = await call();
    } catch (err) {
      outcome = err as Error; // fetch rejects on a refused or dropped connection
    }
    if (!(outcome instanceof Error) && outcome.response.status === 429 && ++limited < MAX_RATE_LIMITED) {
      // a few ms past the promised instant, so a slightly slow clock does not cost another 429
      const ms = retryAfterMs(outcome.response) + 50;
      opts.onWait?.(`rate limited; waiting ${Math.ceil(ms / 1000)} s (Retry-After)`, ms);
      await wait(ms);
      continue;
    }
    if (!(outcome instanceof Error) && !TRANSIENT.has(outcome.response.status)) return outcome;
    if (++failures >= attempts) {
      const why = outcome instanceof Error ? describe(outcome) : `HTTP ${outcome.response.status}`;
      throw new ServerUnavailableError(`the server did not answer after ${attempts} attempts (${why})`);
    }
    const ms = Math.min(MAX_BACKOFF_MS, base * 2 ** (failures - 1));
    opts.onWait?.(
      `${outcome instanceof Error ? describe(outcome) : `HTTP ${outcome.response.status}`}; retrying in ${Math.ceil(ms / 1000)} s`,
      ms,
    );
    await wait(ms);
  }
}

function describe(err: Error): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? err.message;
}
