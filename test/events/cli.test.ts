/**
 * `leadline webhook …` as scripts use it: real processes, --json output, exit
 * codes; the secret shown by create and rotate-secret only. docs/events.md "Webhooks".
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-webhook-cli-'));
const DATABASE_URL = `sqlite:${join(dir, 'cli.db')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => expect((await cli(['migrate'])).code).toBe(0));

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const json = async (args: string[]) => {
  const r = await cli([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('leadline webhook', () => {
  it('create (secret shown once), list, rotate-secret, replay, deliveries, enable, delete', async () => {
    const { companyId } = await json(['company', 'create', '--name', 'Hooks']);
    const { campaignId } = await json(['campaign', 'create', '--company', companyId, '--name', 'C']);
    const created = await json([
      'webhook',
      'create',
      '--company',
      companyId,
      '--url',
      'https://crm.example.com/hook',
      '--events',
      'lead.created,attempt.finished',
      '--campaign',
      campaignId,
    ]);
    expect(created).toEqual({ webhookId: expect.stringMatching(/^wh_/), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/) });
    const listed = await json(['webhook', 'list', '--company', companyId]);
    expect(listed).toEqual([
      expect.objectContaining({
        webhookId: created.webhookId,
        url: 'https://crm.example.com/hook',
        campaignId,
        events: ['lead.created', 'attempt.finished'],
        status: 'enabled',
      }),
    ]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    const rotated = await json(['webhook', 'rotate-secret', created.webhookId]);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(await json(['webhook', 'replay', created.webhookId, '--since', '2026-01-01T00:00:00Z'])).toMatchObject({
      webhookId: created.webhookId,
    });
    expect(await json(['webhook', 'deliveries', created.webhookId, '--failed'])).toEqual([]);
    expect(await json(['webhook', 'enable', created.webhookId])).toEqual({ webhookId: created.webhookId, status: 'enabled' });
    expect(await json(['webhook', 'delete', created.webhookId])).toEqual({ webhookId: created.webhookId, deleted: true });
    expect(await json(['webhook', 'list', '--company', companyId])).toEqual([]);
    expect((await cli(['webhook', 'delete', created.webhookId])).code).toBe(1);
  }, 120_000); // a dozen processes; slow on a loaded machine

  it('create warns, on stderr, when the server will refuse every delivery to the URL (internal, not in OUTBOUND_ALLOW)', async () => {
    const { companyId } = await json(['company', 'create', '--name', 'Local hooks']);
    const create = (url: string, env: Record<string, string> = {}) => cli(['webhook', 'create', '--company', companyId, '--url', url], env);
    for (const url of ['http://127.0.0.1:9000/hook', 'http://localhost:9000/hook', 'http://[::1]:9000/hook', 'http://10.1.2.3/hook']) {
      const r = await create(url);
      expect(r.code, url).toBe(0);
      expect(r.stderr, url).toMatch(/warning: every delivery will be refused by the outbound policy: .* \(allow it with OUTBOUND_ALLOW\)/);
    }
    for (const [url, env] of [
      ['http://127.0.0.1:9000/hook', { OUTBOUND_ALLOW: '127.0.0.0/8' }],
      ['https://crm.example.com/hook', {}],
    ] as const) {
      const r = await create(url, env);
      expect([r.code, r.stderr], url).toEqual([0, expect.not.stringContaining('warning')]);
    }
  }, 120_000);

  it('refuses bad input with a clear message', async () => {
    const { companyId } = await json(['company', 'create', '--name', 'Bad']);
    const cases: [string[], RegExp, number][] = [
      [['--url', 'ftp://x.example/'], /url: must be http/, 1],
      [['--url', 'not a url'], /not an absolute URL/, 1],
      [['--url', 'https://u:p@x.example/'], /user name or password/, 1],
      [['--url', 'https://x.example/', '--events', 'lead.nope'], /unknown type lead.nope/, 1],
      [['--url', 'https://x.example/', '--campaign', 'cp_nope'], /campaign cp_nope not found/, 1],
    ];
    for (const [args, message, code] of cases) {
      const r = await cli(['webhook', 'create', '--company', companyId, ...args]);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.code).toBe(code);
    }
    for (const since of ['yesterday', '2026-02-30T00:00:00Z', '2026-01-31T00:00:00']) {
      const r = await cli(['webhook', 'replay', 'wh_x', '--since', since]);
      expect(r.stderr, since).toMatch(/--since must be an ISO 8601 instant with its zone/);
      expect(r.code).toBe(2);
    }
  }, 120_000);
});
