// The single authority on lead status moves. Every writer (dialer, API, CLI)
// must go through nextStatus so the state machine cannot drift between callers.

export const LEAD_STATUSES = ['raw', 'attempting', 'exhausted', 'concluded'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export const LIFECYCLE_EVENTS = ['claim', 'fail', 'succeed', 'recycle', 'release'] as const;
export type LifecycleEvent = (typeof LIFECYCLE_EVENTS)[number];

export interface AttemptContext {
  /** Attempt count AFTER the attempt being reported. */
  attempts: number;
  maxAttempts: number;
}

/** `release` gives a claim back without a call: the lead returns to the status the claim found. */
export interface ReleaseContext {
  claimedFrom: LeadStatus;
}

export interface LifecycleMove {
  readonly from: LeadStatus;
  readonly event: LifecycleEvent;
  readonly to: LeadStatus;
  /**
   * `fail` depends on the attempt count, `release` on the status the claim
   * found; the table says which branch.
   */
  readonly when?: 'attempts left' | 'at max attempts' | 'claimed from raw' | 'claimed from attempting';
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
  // The dialer gives a claim back without calling (the called person's local
  // window closed, a shutdown, an error before the call): the claim is undone,
  // so a lead never called is raw again, as if it had never been taken.
  { from: 'attempting', event: 'release', to: 'raw', when: 'claimed from raw' },
  { from: 'attempting', event: 'release', to: 'attempting', when: 'claimed from attempting' },
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

export function nextStatus(from: LeadStatus, event: LifecycleEvent, ctx?: AttemptContext | ReleaseContext): LeadStatus {
  const moves = ALLOWED_MOVES.filter((m) => m.from === from && m.event === event);
  if (moves.length === 0) throw new LifecycleError(from, event);
  if (moves.length === 1) return moves[0]!.to;
  if (event === 'release') {
    // The claim found the lead raw or attempting (the claim's own moves); anything else is refused.
    const claimedFrom = ctx && 'claimedFrom' in ctx ? ctx.claimedFrom : undefined;
    if (claimedFrom === undefined) throw new TypeError(`${event} from ${from} needs { claimedFrom }`);
    const move = moves.find((m) => m.when === `claimed from ${claimedFrom}`);
    if (!move) throw new LifecycleError(claimedFrom, 'claim');
    return move.to;
  }
  // `fail` from attempting has two branches; the attempt count picks one.
  if (!ctx || !('attempts' in ctx)) throw new TypeError(`${event} from ${from} needs { attempts, maxAttempts }`);
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
