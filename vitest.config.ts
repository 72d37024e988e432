import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // builds dist/ when src/ is newer, so process tests never run an old build
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own fresh database; files run in parallel processes.
    pool: 'forks',
  },
});
