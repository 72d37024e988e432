/**
 * @leadline/client as an integrator gets it: `npm pack` of packages/client,
 * `npm install` of the tarball into an empty project outside this repository,
 * then a TypeScript program that is type-checked against the installed
 * declarations and run against a real `leadline serve`.
 *
 * Hermetic: openapi-fetch and its one dependency are packed from this
 * repository's node_modules and installed --offline beside the client, so the
 * test never reaches the registry (npm resolves the client's `openapi-fetch`
 * range to the packed copy). The client is packed with --ignore-scripts: its
 * dist/ is built by `npm test`, and rebuilding it here (its prepack) would
 * rewrite files other test files are importing.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededServer, startSeededServer } from './server.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MAX_TARBALL_BYTES = 50_000;

interface Packed {
  filename: string;
  size: number;
  files: { path: string }[];
}

/** npm without the npm_* variables `npm test` exports, which would configure the child as the root project */
async function npm(args: string[], cwd: string): Promise<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  try {
    const { stdout } = await promisify(execFile)('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], {
      cwd,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed:\n${stdout}\n${stderr}`);
  }
}

const CONSUMER = `import { createLeadlineClient, type Lead, type LeadInput } from '@leadline/client';

// the one Node global this program uses; it compiles against the DOM lib alone,
// so the client's declarations need no @types/node
declare const process: { argv: string[] };
const [baseUrl, apiKey, campaignId] = process.argv.slice(2) as [string, string, string];

const client = createLeadlineClient({ baseUrl, apiKey });
const entries: LeadInput[] = [
  { phoneNumber: '+14155550900', externalId: 'pkg-1', metadata: { name: 'Ada' }, priority: 7 },
  { phoneNumber: '+14155550901' },
];
const bulk = await client.POST('/api/v1/leads/bulk', { body: { campaignId, leads: entries } });
if (bulk.error) throw new Error(bulk.error.error);
const page = await client.GET('/api/v1/leads', { params: { query: { campaignId, limit: 8000 } } });
if (page.error) throw new Error(page.error.error);
const leads: Lead[] = page.data.data.leads;
const duplicate = await client.POST('/api/v1/leads', { body: { campaignId, phoneNumber: '+14155550900' } });
console.log(JSON.stringify({
  created: bulk.data.data.created,
  url: page.response.url,
  leads: leads.map((l) => [l.externalId ?? null, l.phoneNumber, l.priority, l.status]),
  duplicate: [duplicate.response.status, duplicate.error?.error],
}));

// @ts-expect-error limit is a number
void client.GET('/api/v1/leads', { params: { query: { campaignId, limit: '8000' } } });
// @ts-expect-error no such path
void client.GET('/api/v1/nope');
// @ts-expect-error priority is a number
void client.POST('/api/v1/leads', { body: { campaignId, phoneNumber: '+14155550123', priority: 'high' } });
// @ts-expect-error campaignId is required
void client.POST('/api/v1/leads/bulk', { body: { leads: entries } });
// @ts-expect-error status is one of raw, attempting, exhausted, concluded
void client.GET('/api/v1/records', { params: { query: { campaignId, status: 'done' } } });
`;

describe('@leadline/client from its tarball', () => {
  let dir: string;
  let client: Packed;
  let server: SeededServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leadline-client-pkg-'));
    const [packed] = await Promise.all([
      npm(
        [
          'pack',
          './packages/client',
          './node_modules/openapi-fetch',
          './node_modules/openapi-typescript-helpers',
          '--json',
          '--ignore-scripts',
          '--pack-destination',
          dir,
        ],
        ROOT,
      ),
      startSeededServer('sqlite').then((s) => (server = s)),
    ]);
    const tarballs = JSON.parse(packed) as Packed[];
    client = tarballs[0]!;
    mkdirSync(join(dir, 'app'));
    writeFileSync(join(dir, 'app', 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await npm(['install', '--offline', '--ignore-scripts', ...tarballs.map((t) => join(dir, t.filename))], join(dir, 'app'));
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`is under ${MAX_TARBALL_BYTES / 1000} kB and holds only the built JS, its declarations, README and license`, () => {
    expect(client.filename).toBe('leadline-client-0.1.0.tgz');
    expect(client.size).toBeLessThan(MAX_TARBALL_BYTES);
    expect(client.files.map((f) => f.path).sort()).toEqual([
      'LICENSE',
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/schema.d.ts',
      'dist/schema.js',
      'package.json',
    ]);
  });

  it('depends on openapi-fetch alone: nothing of the server', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'app/node_modules/@leadline/client/package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@leadline/client', license: 'MIT', type: 'module' });
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
    expect(manifest.peerDependencies).toBeUndefined();
  });

  it('type-checks a program against the installed declarations, and runs it against a real server', async () => {
    const app = join(dir, 'app');
    writeFileSync(join(app, 'consumer.ts'), CONSUMER);
    // tsc emits consumer.js only if it compiles
    await tsc(app, ['--noEmitOnError', 'consumer.ts']);
    const { stdout } = await promisify(execFile)(process.execPath, ['consumer.js', `${server.url}/`, server.writeKey, server.campaignId], {
      cwd: app,
    });
    const out = JSON.parse(stdout);
    expect(out.created).toBe(2);
    expect(out.url).toBe(`${server.url}/api/v1/leads?campaignId=${server.campaignId}&limit=8000`);
    expect(out.leads).toEqual([
      ['pkg-1', '+14155550900', 7, 'raw'],
      [null, '+14155550901', 0, 'raw'],
    ]);
    expect(out.duplicate).toEqual([409, 'Lead with phone number +14155550900 already exists']);
  });

  it('type-checks the guide\'s example (docs/integrators.md, "Use it") under the same settings', async () => {
    const app = join(dir, 'app');
    const guide = readFileSync(join(ROOT, 'docs/integrators.md'), 'utf8');
    const code = /```ts\n([\s\S]*?)```/.exec(guide.slice(guide.indexOf('### Use it')))![1]!;
    writeFileSync(join(app, 'guide.ts'), `${code}\nexport {};\n`);
    // the guide reads process.env: a consumer of it has @types/node
    await tsc(app, ['--noEmit', '--typeRoots', join(ROOT, 'node_modules/@types'), '--types', 'node', 'guide.ts']);
  });
});

/** tsc with the strictest settings a consumer is likely to use */
async function tsc(cwd: string, args: string[]): Promise<void> {
  const flags = [
    '--strict',
    '--noUncheckedIndexedAccess',
    '--exactOptionalPropertyTypes',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
    '--lib',
    'es2022,dom',
  ];
  await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), ...flags, ...args], { cwd }).catch(
    (err: { stdout: string }) => {
      throw new Error(`tsc failed:\n${err.stdout}`);
    },
  );
}
