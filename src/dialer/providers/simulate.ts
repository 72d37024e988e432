/**
 * A pretend telephone, for demos and tests: each call succeeds with the
 * campaign's probability, otherwise fails as no-answer, busy or voicemail,
 * and takes a duration drawn from a range. Randomness and sleeping are
 * injected so tests are deterministic.
 */
import { ABORTED, type CallProvider, type CallResult } from './types.js';

/** how the failures split, in order; the weights sum to 1 */
export const FAILURE_OUTCOMES: readonly (readonly [outcome: string, weight: number])[] = [
  ['no-answer', 0.6],
  ['busy', 0.25],
  ['voicemail', 0.15],
];

export interface SimulateOptions {
  /** probability a call succeeds, 0..1 */
  success: number;
  /** call duration in ms, drawn uniformly from [min, max] */
  durationMs?: readonly [min: number, max: number];
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
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
  return {
    async call(_request, signal): Promise<CallResult> {
      await sleep(min + Math.round(random() * (max - min)), signal);
      if (signal.aborted) return { success: false, outcome: ABORTED, reason: 'the dialer is shutting down' };
      if (random() < o.success) return { success: true, outcome: 'answered' };
      let r = random();
      for (const [outcome, weight] of FAILURE_OUTCOMES) {
        if (r < weight) return { success: false, outcome };
        r -= weight;
      }
      return { success: false, outcome: FAILURE_OUTCOMES[0]![0] };
    },
  };
}
