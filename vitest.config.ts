import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // builds dist/ when src/ is newer, so process tests never run an old build
    globalSetup: ['test/global-setup.ts'],
    // Many files run the `leadline` command as a process (about a second of
    // start-up each) and several at once on 2 cores: 30 s failed tests that
    // were only slow on a shared machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file gets its own fresh database; files run in parallel processes.
    pool: 'forks',
    // The files of a worker share its process and loaded modules: importing
    // src/ again for every file was 57 s of a 186 s run on 2 cores (17 s
    // shared). A file must leave process-wide state as it found it
    // (test/dialer/http-stub.ts, withDefaultPolicy, for the outbound policy).
    isolate: false,
    // Vitest's default is one worker per core less one: a single worker on a
    // 2-core machine. Most files wait on databases, HTTP and child processes
    // rather than compute, so three run side by side on 2 cores.
    maxWorkers: 3,
    // the slowest files start first, also without vitest's cache of durations (test/sequencer.ts)
    sequence: { sequencer: LongestFirst },
  },
});
