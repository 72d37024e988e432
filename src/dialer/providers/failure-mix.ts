/**
 * The simulate provider's failure mix: how its failed calls split between
 * no-answer, busy and voicemail. Written `no-answer=0.6,busy=0.25,voicemail=0.15`:
 * each share a probability from 0 to 1, an omitted outcome 0, and the shares
 * adding up to 1 (they are the outcome's probability *given* a failed call;
 * the campaign's success probability decides how many calls fail). They are
 * not normalised: a mix that does not add up is refused rather than rescaled,
 * so what is stored is what was meant.
 */
import { DEFAULT_FAILURE_MIX, FAILURE_OUTCOMES, type FailureMix, type FailureOutcome } from './simulate.js';

class FailureMixError extends Error {}

/** shares are compared with this slack, so that 0.1 + 0.2 + 0.7 adds up */
const SLACK = 1e-9;
const PROBABILITY = /^(0|1|0?\.\d+|1\.0*)$/;

export function parseFailureMix(raw: string): FailureMix {
  const shares = new Map<FailureOutcome, number>();
  for (const part of raw.split(',').map((s) => s.trim())) {
    const [name, value, extra] = part.split('=').map((s) => s.trim());
    if (!name || value === undefined || extra !== undefined) {
      throw new FailureMixError(
        `expected OUTCOME=SHARE items separated by commas, e.g. no-answer=0.6,busy=0.25,voicemail=0.15; got "${part}"`,
      );
    }
    if (!(FAILURE_OUTCOMES as readonly string[]).includes(name)) {
      throw new FailureMixError(`unknown outcome "${name}" (use ${FAILURE_OUTCOMES.join(', ')})`);
    }
    const outcome = name as FailureOutcome;
    if (shares.has(outcome)) throw new FailureMixError(`"${outcome}" is given twice`);
    const share = Number(value);
    if (!PROBABILITY.test(value) || !(share >= 0 && share <= 1)) {
      throw new FailureMixError(`the share of ${outcome} must be a probability from 0 to 1, e.g. 0.25; got "${value}"`);
    }
    shares.set(outcome, share);
  }
  const total = [...shares.values()].reduce((a, b) => a + b, 0);
  if (Math.abs(total - 1) > SLACK) throw new FailureMixError(`the shares must add up to 1; these add up to ${Number(total.toFixed(6))}`);
  return FAILURE_OUTCOMES.map((o) => [o, shares.get(o) ?? 0] as const);
}

/** canonical spelling: every outcome with a share, in FAILURE_OUTCOMES order */
export function formatFailureMix(mix: FailureMix): string {
  return mix
    .filter(([, share]) => share > 0)
    .map(([o, share]) => `${o}=${share}`)
    .join(',');
}

export const DEFAULT_FAILURE_MIX_SPEC = formatFailureMix(DEFAULT_FAILURE_MIX);
