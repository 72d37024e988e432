/**
 * The simulate provider takes its outcome probabilities and call duration from
 * the campaign; the defaults behave as the fixed 60/25/15 split and 0 s did.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/campaigns/settings.js';
import type { CampaignTable } from '../../src/db/schema.js';
import { providerFor } from '../../src/dialer/providers/index.js';

const request = {
  attemptId: 'at_1',
  leadId: 'ld_1',
  campaignId: 'cp_1',
  phoneNumber: '+14155550100',
  externalId: null,
  metadata: {},
  attempt: 1,
};

/** runs one call per pair of random numbers (duration draw, then outcome draws); returns outcomes and sleeps */
async function calls(settings: Partial<CampaignTable>, draws: number[][], o: { simulateDurationMs?: [number, number] } = {}) {
  const slept: number[] = [];
  const outcomes: string[] = [];
  for (const d of draws) {
    const queue = [...d];
    const provider = providerFor({ provider_url: null, predial_secret: null, ...DEFAULT_SETTINGS, ...settings } as CampaignTable, {
      random: () => queue.shift()!,
      sleep: async (ms) => void slept.push(ms),
      ...o,
    });
    const result = await provider.place(request, new AbortController().signal);
    if (result.kind !== 'finished') throw new Error(`the simulate provider answered ${result.kind}`);
    outcomes.push(result.outcome);
  }
  return { outcomes, slept };
}

describe('the simulate provider', () => {
  it('by default, answers with the success probability and splits failures 60/25/15, instantly', async () => {
    const { outcomes, slept } = await calls({}, [
      [0, 0.49],
      [0, 0.5, 0],
      [0, 0.5, 0.599],
      [0, 0.5, 0.6],
      [0, 0.5, 0.849],
      [0, 0.5, 0.85],
      [0, 0.99, 0.999999],
    ]);
    expect(outcomes).toEqual(['answered', 'no-answer', 'no-answer', 'busy', 'busy', 'voicemail', 'voicemail']);
    expect(slept).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it("takes the campaign's failure mix and call duration", async () => {
    const settings = { simulate_success: 0.2, simulate_failures: 'busy=0.3,voicemail=0.7', simulate_duration: '1s-5s' };
    const { outcomes, slept } = await calls(settings, [
      [0, 0.1],
      [0.5, 0.2, 0],
      [1, 0.2, 0.29],
      [0.25, 0.2, 0.3],
      [0, 0.2, 0.99],
    ]);
    // no-answer has no share: never drawn
    expect(outcomes).toEqual(['answered', 'busy', 'busy', 'voicemail', 'voicemail']);
    expect(slept).toEqual([1000, 3000, 5000, 2000, 1000]);
  });

  it("the dialer's --simulate-duration overrides the campaign's", async () => {
    const { slept } = await calls({ simulate_duration: '1s-5s' }, [[1, 0]], { simulateDurationMs: [7000, 7000] });
    expect(slept).toEqual([7000]);
  });

  it('refuses a stored mix it cannot use, like every other unusable setting', () => {
    expect(() => providerFor({ ...DEFAULT_SETTINGS, simulate_failures: 'busy=0.5' } as CampaignTable, {})).toThrow(/add up to 1/);
  });
});
