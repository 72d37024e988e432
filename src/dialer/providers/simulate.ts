/**
 * A pretend telephone, for demos and tests: each call succeeds with the
 * campaign's probability, otherwise fails as no-answer, busy or voicemail in
 * the campaign's failure mix, and takes a duration drawn from a range (the
 * campaign's, or the dialer's --simulate-duration). Randomness and sleeping
 * are injected so tests are deterministic.
 */
import type { CallProvider, PlaceResult } from './types.js';

/** the outcomes of a failed simulated call, in the order the mix is written */
export const FAILURE_OUTCOMES = ['no-answer', 'busy', 'voicemail'] as const;
export type FailureOutcome = (typeof FAILURE_OUTCOMES)[number];
export type FailureMix = readonly (readonly [outcome: FailureOutcome, share: number])[];

/** how failures split by default (and before they could be set): 60 / 25 / 15 */
export const DEFAULT_FAILURE_MIX: FailureMix = [
  ['no-answer', 0.6],
  ['busy', 0.25],
  ['voicemail', 0.15],
];

export interface SimulateOptions {
  /** probability a call succeeds, 0..1 */
  success: number;
  /** how the failed calls split; the shares sum to 1. Default DEFAULT_FAILURE_MIX. */
  failures?: FailureMix;
  /** call duration in ms, drawn uniformly from [min, max] */
  durationMs?: readonly [min: number, max: number];
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export function simulateProvider(o: SimulateOptions): CallProvider {
  const random = o.random ?? Math.random;
  const sleep = o.sleep ?? abortableSleep;
  const [min, max] = o.durationMs ?? [0, 0];
  const failures = (o.failures ?? DEFAULT_FAILURE_MIX).filter(([, share]) => share > 0);
  return {
    async place(_request, signal): Promise<PlaceResult> {
      const ms = min + Math.round(random() * (max - min));
      await sleep(ms, signal);
      // A call cut short (a shutdown past its grace, a lost claim) was placed: it is an attempt.
      if (signal.aborted)
        return { kind: 'finished', success: false, outcome: 'canceled', reason: 'the dialer hung up before the call ended' };
      const durationSeconds = ms / 1000;
      if (random() < o.success) return { kind: 'finished', success: true, outcome: 'answered', durationSeconds };
      let r = random();
      for (const [outcome, share] of failures) {
        if (r < share) return { kind: 'finished', success: false, outcome, durationSeconds };
        r -= share;
      }
      // r was within rounding of 1: the last outcome with a share
      return { kind: 'finished', success: false, outcome: failures.at(-1)?.[0] ?? 'no-answer', durationSeconds };
    },
  };
}
