/** The dialer's commands as scripts use them: real processes, --json, exit codes, signals. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/campaigns/settings.js';
import { openStore, type Store } from '../../src/store/index.js';
import { cli, startDialer } from './dialer-process.js';
import { ALLOW_STUBS, startStub } from './http-stub.js';
import { attemptRows, leadRow, seedLeads } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-dialer-cli-'));
const path = join(dir, 'dialer.db');
const env = { DATABASE_URL: `sqlite:${path}` };
let db: Store;
let companyId: string;

beforeAll(async () => {
  db = openStore({ kind: 'sqlite', path });
  await db.migrate();
  ({ companyId } = JSON.parse((await cli(['company', 'create', '--name', 'Acme', '--json'], env)).stdout));
});
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[]) => cli(args, env);
async function json(args: string[]) {
  const r = await run([...args, '--json']);
  // a secret given without SECRET_KEY is stored as given, and the command says so (test/providers/settings.test.ts)
  expect(r.stderr.replace(/^warning: SECRET_KEY is not set[^\n]*\n/m, '')).toBe(`database: sqlite ${path}\n`);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}
const campaign = (id: string) => db.kysely.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('leadline campaign create / update', () => {
  it('stores every setting, and defaults for the ones omitted', async () => {
    const { campaignId } = await json([
      'campaign',
      'create',
      '--company',
      companyId,
      '--name',
      'All settings',
      '--timezone',
      'america/new_york',
      '--hours',
      'mon-fri 09:00-12:00, mon-fri 13:00-17:00',
      '--max-attempts',
      '5',
      '--retry-delay',
      '1h30m',
      '--concurrency',
      '4',
      '--local-window',
      '09:00-20:00',
      '--predial-url',
      'https://crm.example/predial',
      '--predial-secret',
      's3cret',
      '--provider',
      'webhook',
      '--provider-url',
      'https://phone.example/call',
      '--simulate-success',
      '0.25',
      '--simulate-failures',
      'busy=0.5,no-answer=0.5',
      '--simulate-duration',
      '1s-5s',
    ]);
    expect(await campaign(campaignId)).toMatchObject({
      timezone: 'America/New_York',
      hours: 'mon-fri 09:00-12:00, mon-fri 13:00-17:00',
      max_attempts: 5,
      retry_delay_ms: 5_400_000,
      concurrency: 4,
      local_window: '09:00-20:00',
      predial_url: 'https://crm.example/predial',
      predial_secret: 's3cret',
      provider: 'webhook',
      provider_url: 'https://phone.example/call',
      simulate_success: 0.25,
      simulate_failures: 'no-answer=0.5,busy=0.5',
      simulate_duration: '1s-5s',
    });
    const { campaignId: plain } = await json(['campaign', 'create', '--company', companyId, '--name', 'Defaults']);
    const defaults = {
      timezone: 'UTC',
      hours: 'mon-fri 09:00-17:00',
      max_attempts: 3,
      retry_delay_ms: 1_800_000,
      concurrency: 1,
      local_window: '08:00-21:00',
      provider: 'simulate',
      simulate_success: 0.5,
      simulate_failures: 'no-answer=0.6,busy=0.25,voicemail=0.15',
      simulate_duration: '0s',
      regional_rules: 'us',
      call_timeout_ms: 1_800_000,
      retry_delays: '',
      closed_dates: '',
      require_consent: 0,
    };
    expect(await campaign(plain)).toMatchObject({ ...defaults, predial_url: null, predial_secret: null, provider_url: null });
    // the constant the docs and the code name is what the database writes
    expect(DEFAULT_SETTINGS).toEqual(defaults);
  });

  it('update changes only what it is given; the text output hides the secret', async () => {
    const { campaignId } = await json([
      'campaign',
      'create',
      '--company',
      companyId,
      '--name',
      'U',
      '--max-attempts',
      '7',
      '--predial-url',
      'http://crm.local/p',
      '--predial-secret',
      'hush',
    ]);
    expect(await json(['campaign', 'update', campaignId, '--retry-delay', '0s', '--hours', 'mon-sun 00:00-24:00'])).toEqual({ campaignId });
    expect(await campaign(campaignId)).toMatchObject({
      retry_delay_ms: 0,
      hours: 'mon-sun 00:00-24:00',
      max_attempts: 7,
      timezone: 'UTC',
      predial_secret: 'hush',
    });
    const text = await run(['campaign', 'update', campaignId, '--local-window', '00:00-24:00']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('local window:  off');
    expect(text.stdout).toContain('retry delay:   0s');
    expect(text.stdout).not.toContain('hush');
    const sim = await run(['campaign', 'update', campaignId, '--simulate-failures', 'voicemail=1', '--simulate-duration', '2s']);
    expect(sim.code).toBe(0);
    expect(sim.stdout).toContain('provider:      simulate (success 0.5; failures voicemail=1; duration 2s)');
    expect(await campaign(campaignId)).toMatchObject({ simulate_failures: 'voicemail=1', simulate_duration: '2s', max_attempts: 7 });
  });

  // Every parser is covered in settings.test.ts; here, that a refusal is exit 2 with the message, from both commands.
  it.each([
    [['--timezone', 'Mars/Base'], '--timezone: invalid timezone "Mars/Base"'],
    [['--retry-delay', '30 minutes'], '--retry-delay: invalid duration "30 minutes"'],
    [['--provider', 'webhook'], '--provider webhook needs --provider-url'],
    [['--simulate-failures', 'busy=0.5'], '--simulate-failures: the shares must add up to 1; these add up to 0.5'],
    [['--simulate-duration', '5s-1s'], '--simulate-duration: invalid duration "5s-1s": 1s is shorter than 5s'],
  ])('refuses %j with exit 2 and says why', async (args, message) => {
    const { campaignId } = await json(['campaign', 'create', '--company', companyId, '--name', 'target']);
    for (const command of [
      ['campaign', 'create', '--company', companyId, '--name', 'bad'],
      ['campaign', 'update', campaignId],
    ]) {
      const r = await run([...command, ...args]);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
      expect(r.stderr).toContain(message);
    }
  });

  it('--closed-dates and --require-consent: stored canonically, turned off again on update, bad dates refused (exit 2)', async () => {
    const { campaignId } = await json([
      'campaign',
      'create',
      '--company',
      companyId,
      '--name',
      'Gates',
      '--closed-dates',
      '2026-12-31,us-federal,2026-12-24',
      '--require-consent',
    ]);
    expect(await campaign(campaignId)).toMatchObject({ closed_dates: 'us-federal,2026-12-24,2026-12-31', require_consent: 1 });
    const shown = await run(['campaign', 'show', campaignId]);
    expect(shown.stdout).toContain('closed dates:  us-federal,2026-12-24,2026-12-31');
    expect(shown.stdout).toContain('consent:       required (metadata.consentAt)');
    expect(await json(['campaign', 'show', campaignId])).toMatchObject({
      closedDates: 'us-federal,2026-12-24,2026-12-31',
      requireConsent: true,
    });
    // an update without them keeps them
    await json(['campaign', 'update', campaignId, '--max-attempts', '4']);
    expect(await campaign(campaignId)).toMatchObject({ closed_dates: 'us-federal,2026-12-24,2026-12-31', require_consent: 1 });
    await json(['campaign', 'update', campaignId, '--closed-dates', 'none', '--no-require-consent']);
    expect(await campaign(campaignId)).toMatchObject({ closed_dates: '', require_consent: 0 });
    const bad = await run(['campaign', 'update', campaignId, '--closed-dates', '2026-13-01']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--closed-dates: "2026-13-01" is not a date');
  });

  it('campaign show prints no password written into a URL setting', async () => {
    const { campaignId } = await json([
      'campaign',
      'create',
      '--company',
      companyId,
      '--name',
      'Userinfo',
      '--predial-url',
      'https://crm:s3cret@crm.example/lookup',
      '--provider',
      'webhook',
      '--provider-url',
      // a user name that is an email, and a password holding an @
      'https://me@corp.com:t0k@en@calls.example/call',
    ]);
    const shown = await run(['campaign', 'show', campaignId]);
    const asJson = await json(['campaign', 'show', campaignId]);
    for (const text of [shown.stdout, JSON.stringify(asJson)]) {
      expect(text).not.toMatch(/s3cret|t0k|en@calls/);
      expect(text).toContain('https://crm:***@crm.example/lookup');
      expect(text).toContain('https://me%40corp.com:***@calls.example/call');
    }
  });

  it('--regional-rules: us by default, off on update, anything else refused (exit 2)', async () => {
    const { campaignId } = await json(['campaign', 'create', '--company', companyId, '--name', 'States']);
    expect(await campaign(campaignId)).toMatchObject({ regional_rules: 'us' });
    expect((await run(['campaign', 'show', campaignId])).stdout).toContain("state rules:   us (US numbers: their state's calling hours)");
    await json(['campaign', 'update', campaignId, '--regional-rules', 'off']);
    expect(await json(['campaign', 'show', campaignId])).toMatchObject({ regionalRules: 'off' });
    const bad = await run(['campaign', 'update', campaignId, '--regional-rules', 'ca']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--regional-rules must be us or off, got "ca"');
    expect(await campaign(campaignId)).toMatchObject({ regional_rules: 'off' });
  });

  it('update of a missing campaign exits 1', async () => {
    const r = await run(['campaign', 'update', 'cp_missing', '--concurrency', '2']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('campaign cp_missing not found');
  });
});

describe('leadline dialer, recycle and lead explain', () => {
  it('--once calls what is due and exits 0; explain and recycle report it', async () => {
    const { campaignId } = await json([
      'campaign',
      'create',
      '--company',
      companyId,
      '--name',
      'Once',
      '--hours',
      'mon-sun 00:00-24:00',
      '--local-window',
      '00:00-24:00',
      '--regional-rules',
      'off',
      '--max-attempts',
      '1',
      '--simulate-success',
      '0',
      '--concurrency',
      '3',
    ]);
    const ids = await seedLeads(db, campaignId, [
      { externalId: 'a' },
      { externalId: 'b' },
      { externalId: 'c', scheduledFor: '2099-01-01T00:00:00.000Z' },
    ]);
    const d = startDialer(['--once', '--campaign', campaignId], env);
    expect(await d.exited).toBe(0);
    const attempts = d.logs().filter((l) => l.msg === 'attempt');
    expect(attempts).toHaveLength(2);
    expect(attempts[0]).toMatchObject({ campaignId, success: false, attempt: 1, status: 'exhausted', outcome: expect.any(String) });
    expect(d.logs().at(-1)).toMatchObject({ msg: expect.stringContaining('dialer finished'), attempts: 2 });

    expect(await json(['lead', 'explain', '--campaign', campaignId, '--external-id', 'a'])).toMatchObject({
      due: false,
      reasons: ['attempts used up'],
      nextDueAt: null,
    });
    const later = await json(['lead', 'explain', '--campaign', campaignId, '--external-id', 'c']);
    expect(later).toMatchObject({ due: false, reasons: ['scheduled later'], nextDueAt: '2099-01-01T00:00:00.000Z' });
    const phone = (await leadRow(db, ids[1]!))!.phone_number!;
    const text = await run(['lead', 'explain', '--campaign', campaignId, '--phone', phone]);
    expect(text.stdout).toBe(
      'not due: attempts used up\nit will not be called again unless the campaign is recycled\nlocal time checked in: America/Los_Angeles\n',
    );

    expect(await json(['campaign', 'recycle', '--campaign', campaignId])).toEqual({ campaignId, recycled: 2 });
    const now = await json(['lead', 'explain', '--campaign', campaignId, '--external-id', 'a']);
    expect(now).toMatchObject({ due: true, reasons: [] });
    expect(Date.parse(now.nextDueAt)).toBeLessThanOrEqual(Date.now());
    expect((await leadRow(db, ids[0]!))!).toMatchObject({ status: 'attempting', attempts: 1 });
  });

  it("the simulate provider follows the campaign's failure mix and call duration; the dialer's --simulate-duration overrides it", async () => {
    const { campaignId } = await json([
      'campaign',
      'create',
      '--company',
      companyId,
      '--name',
      'Simulated',
      '--hours',
      'mon-sun 00:00-24:00',
      '--local-window',
      '00:00-24:00',
      '--regional-rules',
      'off',
      '--simulate-success',
      '0',
      '--simulate-failures',
      'voicemail=1',
      '--simulate-duration',
      '1s',
      '--retry-delay',
      '0s',
    ]);
    await seedLeads(db, campaignId, [{}]);
    const slow = startDialer(['--once', '--campaign', campaignId], env);
    expect(await slow.exited).toBe(0);
    const [first] = slow.logs().filter((l) => l.msg === 'attempt');
    expect(first).toMatchObject({ outcome: 'voicemail', success: false });
    expect(first!.ms).toBeGreaterThanOrEqual(1000);
    const quick = startDialer(['--once', '--campaign', campaignId, '--simulate-duration', '0s'], env);
    expect(await quick.exited).toBe(0);
    const [second] = quick.logs().filter((l) => l.msg === 'attempt');
    expect(second).toMatchObject({ outcome: 'voicemail', attempt: 2 });
    expect(second!.ms).toBeLessThan(1000);
  });

  it('lead explain: exactly one identifier (exit 2); an unknown lead or campaign exits 1', async () => {
    const both = await run(['lead', 'explain', '--campaign', 'cp_x', '--external-id', 'a', '--phone', '+14155550123']);
    expect(both.code).toBe(2);
    const none = await run(['lead', 'explain', '--campaign', 'cp_x']);
    expect(none.code).toBe(2);
    const { campaignId } = await json(['campaign', 'create', '--company', companyId, '--name', 'Explain']);
    const lead = await run(['lead', 'explain', '--campaign', campaignId, '--external-id', 'nobody']);
    expect(lead.code).toBe(1);
    expect(lead.stderr).toContain('no lead with externalId nobody');
    const missing = await run(['lead', 'explain', '--campaign', 'cp_missing', '--phone', '+14155550123']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('campaign cp_missing not found');
    const dialer = await run(['dialer', '--once', '--campaign', 'cp_missing']);
    expect(dialer.code).toBe(1);
    expect((await run(['dialer', '--claim-timeout', 'soon'])).code).toBe(2);
    // past Node's timer limit a delay fires at once: a 25-day grace was 1 ms
    for (const flags of [
      ['--grace', '25d'],
      ['--claim-timeout', '100d'],
      ['--simulate-duration', '1s-25d'],
    ]) {
      const tooLong = await run(['dialer', ...flags]);
      expect(tooLong.code, flags.join(' ')).toBe(2);
      expect(tooLong.stderr).toContain('must be at most 24d');
    }
    const noCalls = await run(['dialer', '--max-calls', '0']);
    expect(noCalls.code).toBe(2);
    expect(noCalls.stderr).toContain('--max-calls must be a whole number of at least 1, got "0"');
  });

  it('SIGTERM: calls in flight finish within the grace period, then it exits 0', async () => {
    const { campaignId } = await json([
      'campaign',
      'create',
      '--company',
      companyId,
      '--name',
      'Drain',
      '--hours',
      'mon-sun 00:00-24:00',
      '--local-window',
      '00:00-24:00',
      '--regional-rules',
      'off',
      '--concurrency',
      '2',
      '--simulate-success',
      '1',
    ]);
    const ids = await seedLeads(db, campaignId, [{}, {}, {}]);
    const d = startDialer(['--campaign', campaignId, '--simulate-duration', '1s', '--grace', '10s'], env);
    await d.waitFor((l) => l.msg === 'dialer started');
    while (
      (await db.kysely.selectFrom('leads').select('id').where('campaign_id', '=', campaignId).where('claimed_by', 'is not', null).execute())
        .length < 2
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    const rows = await Promise.all(ids.map((id) => leadRow(db, id)));
    // the two calls in flight finished and were recorded; the third was never started
    expect(rows.map((r) => r!.status).sort()).toEqual(['concluded', 'concluded', 'raw']);
    expect(rows.every((r) => r!.claimed_by === null)).toBe(true);
  });

  it('SIGTERM after the grace period: unfinished calls are hung up and recorded as attempts (never dialled again under their id), and it exits 0', async () => {
    const { campaignId } = await json([
      'campaign',
      'create',
      '--company',
      companyId,
      '--name',
      'Release',
      '--hours',
      'mon-sun 00:00-24:00',
      '--local-window',
      '00:00-24:00',
      '--regional-rules',
      'off',
    ]);
    const [id] = await seedLeads(db, campaignId, [{}]);
    const d = startDialer(['--campaign', campaignId, '--simulate-duration', '1h', '--grace', '0s'], env);
    while (!(await leadRow(db, id!))!.claimed_by) await new Promise((r) => setTimeout(r, 20));
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    // the call was placed: it is an attempt, closed as canceled, and the lead waits its retry delay
    expect(await leadRow(db, id!)).toMatchObject({ status: 'attempting', attempts: 1, claimed_by: null });
    expect((await attemptRows(db, id!)).map((a) => [a.state, a.outcome, a.counts])).toEqual([['closed', 'canceled', 1]]);
    expect(d.logs().some((l) => l.msg === 'attempt' && l.outcome === 'canceled')).toBe(true);
  });
});

describe('the outbound policy in a dialer process', () => {
  it('refuses a predial function on loopback by default and records why; OUTBOUND_ALLOW=127.0.0.0/8 lets it through', async () => {
    const crm = await startStub(null, () => ({ body: { phoneNumber: '+14155550123' } }));
    try {
      const { campaignId } = await json([
        'campaign',
        'create',
        '--company',
        companyId,
        '--name',
        'Outbound',
        '--hours',
        'mon-sun 00:00-24:00',
        '--local-window',
        '00:00-24:00',
        '--regional-rules',
        'off',
        '--max-attempts',
        '1',
        '--simulate-success',
        '1',
        '--predial-url',
        crm.url,
      ]);
      const [refused] = await seedLeads(db, campaignId, [{ externalId: 'refused', phoneNumber: null }]);
      expect(await startDialer(['--once', '--campaign', campaignId], env).exited).toBe(0);
      expect(crm.requests).toHaveLength(0);
      expect(await attemptRows(db, refused!)).toMatchObject([
        {
          outcome: 'predial-failed',
          reason: `predial: refused by the outbound policy: 127.0.0.1 is a loopback address (allow it with OUTBOUND_ALLOW)`,
        },
      ]);

      const [allowed] = await seedLeads(db, campaignId, [{ externalId: 'allowed', phoneNumber: null }]);
      expect(await startDialer(['--once', '--campaign', campaignId], { ...env, ...ALLOW_STUBS }).exited).toBe(0);
      expect(crm.requests.map((r) => r.body.externalId)).toEqual(['allowed']);
      expect(await attemptRows(db, allowed!)).toMatchObject([{ success: 1 }]);
    } finally {
      await crm.close();
    }
  });

  it('a malformed OUTBOUND_ALLOW stops the dialer with a message naming it', async () => {
    const d = startDialer(['--once'], { ...env, OUTBOUND_ALLOW: '10.0.0.0/99' });
    expect(await d.exited).not.toBe(0);
    expect(d.output()).toContain('OUTBOUND_ALLOW: "10.0.0.0/99" is not a CIDR');
  });
});
