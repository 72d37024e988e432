/**
 * The `leadline` command as one module (dist/cli-bundle/index.js) beside
 * tsc's output, which bin/leadline.js runs. Every CLI command is a process of
 * its own, and loading kysely's 279 modules and leadline's own one file at a
 * time was most of each start: `leadline --version` took 0.32 s, against
 * 0.06 s for an empty node. Bundled, the same modules load as one file.
 *
 * Only leadline's code and kysely are bundled. Every other package stays in
 * node_modules and loads as before: native addons (better-sqlite3) and
 * packages that read their own files (swagger-ui's assets, pino's transports)
 * cannot move, and the rest load in a few milliseconds each. The dynamic
 * imports that keep a command from loading what it does not use (the server,
 * the OpenAPI document) become chunks, still loaded only when used.
 *
 * Written as a script, not esbuild's command line: the list of packages left
 * out is package.json's dependencies, read here.
 */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const BUNDLED = new Set(['kysely']);
const { dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = Object.keys(dependencies)
  .filter((name) => !BUNDLED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

await build({
  entryPoints: ['dist/cli/index.js'],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // two levels below the root, as dist/cli/index.js is: its '../../package.json' still resolves
  outdir: 'dist/cli-bundle',
  external,
  logLevel: 'warning',
});
