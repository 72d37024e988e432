/**
 * Retry delays that depend on how the last attempt ended:
 * `busy=10m,no-answer=2h,default=30m`, or a plain duration for every
 * outcome. The default is stored in retry_delay_ms and the outcomes that
 * differ from it in retry_delays, in this canonical spelling.
 */
import { formatDuration, parseDuration } from '../scheduling/duration.js';

class RetryDelayError extends Error {}

const OUTCOME = /^[a-z][a-z0-9-]{0,39}$/;

export interface RetryDelays {
  /** the delay for every outcome not listed; undefined when the map names no default */
  defaultMs: number | undefined;
  /** canonical "outcome=duration" items, sorted by outcome; '' when none */
  byOutcome: string;
}

export function parseRetryDelays(raw: string): RetryDelays {
  const text = raw.trim();
  if (!text.includes('=')) return { defaultMs: parseDuration(text), byOutcome: '' };
  const map = new Map<string, number>();
  for (const part of text.split(',').map((p) => p.trim())) {
    const [name, value, extra] = part.split('=').map((s) => s.trim());
    if (!name || !value || extra !== undefined)
      throw new RetryDelayError(
        `expected OUTCOME=DURATION items separated by commas, e.g. busy=10m,no-answer=2h,default=30m; got "${part}"`,
      );
    if (!OUTCOME.test(name)) throw new RetryDelayError(`"${name}" is not an outcome name (lowercase letters, digits and -)`);
    if (map.has(name)) throw new RetryDelayError(`"${name}" is given twice`);
    map.set(name, parseDuration(value));
  }
  const defaultMs = map.get('default');
  map.delete('default');
  const byOutcome = [...map]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([o, ms]) => `${o}=${formatDuration(ms)}`)
    .join(',');
  return { defaultMs, byOutcome };
}

/** the delay after an attempt that ended with `outcome` */
export function retryDelayFor(outcome: string, defaultMs: number, byOutcome: string): number {
  if (byOutcome === '') return defaultMs;
  for (const item of byOutcome.split(',')) {
    const eq = item.indexOf('=');
    if (item.slice(0, eq) === outcome) return parseDuration(item.slice(eq + 1));
  }
  return defaultMs;
}

/** how `campaign show` and the form spell the setting: a plain duration, or the map with its default */
export const formatRetryDelays = (defaultMs: number, byOutcome: string): string =>
  byOutcome === '' ? formatDuration(defaultMs) : `${byOutcome},default=${formatDuration(defaultMs)}`;
