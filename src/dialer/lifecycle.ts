// The single authority on lead status moves. Every writer (dialer, API, CLI)
// must go through nextStatus so the state machine cannot drift between callers.

export const LEAD_STATUSES = ['raw', 'attempting', 'exhausted', 'concluded'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export const LIFECYCLE_EVENTS = ['claim', 'fail', 'succeed', 'recycle'] as const;
export type LifecycleEvent = (typeof LIFECYCLE_EVENTS)[number];

export interface AttemptContext {
  /** Attempt count AFTER the attempt being reported. */
  attempts: number;
  maxAttempts: number;
}

export interface LifecycleMove {
  readonly from: LeadStatus;
  readonly event: LifecycleEvent;
  readonly to: LeadStatus;
  /** Only `fail` depends on the attempt count; the table says which branch. */
  readonly when?: 'attempts left' | 'at max attempts';
}

const MOVES: LifecycleMove[] = [
  { from: 'raw', event: 'claim', to: 'attempting' },
  // A lead already attempting is claimed again for each further attempt.
  { from: 'attempting', event: 'claim', to: 'attempting' },
  { from: 'attempting', event: 'fail', to: 'attempting', when: 'attempts left' },
  { from: 'attempting', event: 'fail', to: 'exhausted', when: 'at max attempts' },
  { from: 'attempting', event: 'succeed', to: 'concluded' },
  // An operator grants more attempts; the caller raises maxAttempts alongside.
  { from: 'exhausted', event: 'recycle', to: 'attempting' },
];
/** Every allowed move; anything absent is refused. Docs and tests enumerate this. */
export const ALLOWED_MOVES: readonly Readonly<LifecycleMove>[] = Object.freeze(MOVES.map((m) => Object.freeze(m)));

export class LifecycleError extends Error {
  readonly from: LeadStatus;
  readonly event: LifecycleEvent;
  constructor(from: LeadStatus, event: LifecycleEvent) {
    super(`cannot ${event} a lead that is ${from}`);
    this.name = 'LifecycleError';
    this.from = from;
    this.event = event;
  }
}

export function isLeadStatus(s: unknown): s is LeadStatus {
  return typeof s === 'string' && (LEAD_STATUSES as readonly string[]).includes(s);
}

export function nextStatus(from: LeadStatus, event: LifecycleEvent, ctx?: AttemptContext): LeadStatus {
  const moves = ALLOWED_MOVES.filter((m) => m.from === from && m.event === event);
  if (moves.length === 0) throw new LifecycleError(from, event);
  if (moves.length === 1) return moves[0]!.to;
  // Only `fail` from attempting has two branches; the attempt count picks one.
  if (!ctx) throw new TypeError(`${event} from ${from} needs { attempts, maxAttempts }`);
  const { attempts, maxAttempts } = ctx;
  if (!Number.isInteger(attempts) || attempts < 1 || !Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`attempts and maxAttempts must be integers >= 1 (got ${attempts}/${maxAttempts})`);
  }
  const when = attempts >= maxAttempts ? 'at max attempts' : 'attempts left';
  return moves.find((m) => m.when === when)!.to;
}

/** Non-throwing check, for UIs that grey out actions. */
export function canMove(from: LeadStatus, event: LifecycleEvent): boolean {
  return ALLOWED_MOVES.some((m) => m.from === from && m.event === event);
}
