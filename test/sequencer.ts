/**
 * Longest files first, on a clean clone too. Vitest orders files by the
 * durations it cached from the last run, and without them (a clean clone, as
 * in CI) by size: the dialer's multi-process files, which wait about 40 s on
 * real processes and timers, are small and were started among the last, so
 * the run ended behind them (194 s on 2 quiet cores, against 184 s with the
 * durations cached). Started first, they wait while the other files use
 * the cores. The list is the slowest files of a run on 2026-11-28; a file
 * not in it keeps vitest's order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const FIRST = [
  'test/dialer/concurrency.test.ts',
  'test/dialer/processes.test.ts',
  'test/dialer/cli.test.ts',
  'test/integrators/import-export.test.ts',
  'test/web/campaign-browser.test.ts',
  'test/providers/settings.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const i = FIRST.findIndex((path) => spec.moduleId.endsWith(path));
      return i === -1 ? FIRST.length : i;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
