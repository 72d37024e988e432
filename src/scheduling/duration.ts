// Human-written durations for config and CLI flags: "0s", "90s", "30m", "2h",
// "1d", "1h30m", "1d2h30m15s". Units go largest first, each at most once.
// The first component is unbounded ("90s", "36h") so people can write what
// they think in; later components must stay below the next larger unit
// ("1h90m" is refused), which catches typos like "1h300m" for "1h30m".
// Only whole seconds: the dialer never schedules finer than that.

const UNITS = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
] as const;

// Bound of a non-leading component: the ratio to the next larger unit.
const LIMIT: Record<string, number> = { h: 24, m: 60, s: 60 };

const HINT = 'expected a whole number and unit, largest first, e.g. 0s, 90s, 30m, 2h, 1d or 1h30m';

class DurationError extends Error {
  constructor(input: string, reason: string) {
    super(`invalid duration "${input}": ${reason}`);
    this.name = 'DurationError';
  }
}

export function parseDuration(s: string): number {
  if (typeof s !== 'string' || s === '') throw new DurationError(String(s), HINT);
  const re = /(\d+)([a-z]+)/gy;
  let total = 0;
  let lastUnit = -1;
  let end = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    const [, digits, unit] = m as unknown as [string, string, string];
    const idx = UNITS.findIndex(([u]) => u === unit);
    if (idx < 0) throw new DurationError(s, `unknown unit "${unit}" (use d, h, m or s)`);
    if (idx <= lastUnit) throw new DurationError(s, `"${unit}" is repeated or out of order; ${HINT}`);
    const n = Number(digits);
    if (lastUnit >= 0 && n >= LIMIT[unit]!) {
      throw new DurationError(s, `${digits}${unit} must be below ${LIMIT[unit]}${unit} after a larger unit`);
    }
    total += n * UNITS[idx]![1];
    lastUnit = idx;
    end = re.lastIndex;
  }
  // The sticky regex stops at the first byte it cannot match; anything left is junk.
  if (end !== s.length || lastUnit < 0) throw new DurationError(s, HINT);
  if (!Number.isSafeInteger(total)) throw new DurationError(s, 'too large');
  return total;
}

/**
 * Canonical spelling: largest units first, zero components dropped, so
 * 5400000 -> "1h30m" and 90000 -> "1m30s". It is the shortest spelling whose
 * every component stays within its natural bound; a pure character count
 * would prefer "95415s" to "1d2h30m15s", which nobody can read at a glance.
 */
export function formatDuration(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms % 1000 !== 0) {
    throw new RangeError(`cannot format duration ${ms}: need a non-negative whole number of seconds in ms`);
  }
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) out += `${n}${unit}`;
  }
  return out;
}

/**
 * A duration or a range of them: "2s" or "1s-5s" (the simulate provider's
 * call duration). Returns [min, max] in ms.
 */
export function parseDurationRange(raw: string): [number, number] {
  const [a, b, extra] = raw.trim().split('-');
  if (a === undefined || a === '' || b === '' || extra !== undefined) {
    throw new DurationError(raw, 'expected a duration or MIN-MAX, e.g. 2s or 1s-5s');
  }
  const min = parseDuration(a);
  const max = b === undefined ? min : parseDuration(b);
  if (max < min) throw new DurationError(raw, `${b} is shorter than ${a}`);
  return [min, max];
}

/** canonical spelling of a range: "0s", "2s", "1s-5s" */
export function formatDurationRange([min, max]: readonly [number, number]): string {
  return min === max ? formatDuration(min) : `${formatDuration(min)}-${formatDuration(max)}`;
}
