/**
 * The dialer's parts of the dashboard, after real dialer passes: calls today,
 * last attempts, a lead's history and explain answer, and recycling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { Dialer } from '../../src/dialer/worker.js';
import { createLogger } from '../../src/logger.js';
import { seed } from '../api/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Browser, signedInUser } from './support.js';

describe.each(await availableStores())('dashboard dialer views on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  let b: Browser;
  let campaignId: string;
  let leads: string[];
  /** the UTC hour ("07") of each dialer run: the chart's bars */
  const runHours: string[] = [];
  const hourOf = (ms: number) => new Date(ms).toISOString().slice(11, 13);
  beforeAll(async () => {
    f = await makeFixture(kind);
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'ops-a@example.com');
    b = await signedInUser(f.app, f.db, f.ids.companyB, 'ops-b@example.com');
    ({ campaignId } = await createCampaign(f.db, {
      companyId: f.ids.companyA,
      name: 'Always failing',
      hours: 'mon-sun 00:00-24:00',
      local_window: '00:00-24:00',
      regional_rules: 'off',
      max_attempts: 2,
      retry_delay_ms: 0,
      simulate_success: 0,
    }));
    leads = await seed(f, campaignId, [
      { phoneNumber: '+14155550701' },
      { phoneNumber: '+14155550702' },
      { externalId: 'later', phoneNumber: '+14155550703', scheduledFor: '2099-01-01T00:00:00Z' },
    ]);
    const dialer = () =>
      new Dialer({
        store: f.db,
        logger: createLogger('silent'),
        campaignIds: [campaignId],
        simulateDurationMs: [0, 0],
        now: () => f.clock.now,
      });
    runHours.push(hourOf(f.clock.now));
    await dialer().runOnce();
    // runOnce calls what was due before it started (dueBy = start - 1 ms), and
    // with no retry delay a failed lead is due at the millisecond of its
    // failure: the second run starts a second later on the test's clock.
    f.clock.advance(1000);
    runHours.push(hourOf(f.clock.now));
    await dialer().runOnce();
  });
  afterAll(() => f.close());

  it('the overview draws calls per hour by outcome as inline SVG, with attempt durations', async () => {
    const page = await a.get('/dashboard/');
    const chart = /<figure class="chart">([\s\S]*?)<\/figure>/.exec(page.body)![1]!;
    expect(chart).toContain('<title id="chart-title">Calls per hour over the last 24 hours: 4 calls');
    // every call is in the bar of the hour its run was made in (one bar, the
    // last, unless the two runs a second apart straddle an hour), by outcome
    const bars = [...chart.matchAll(/<title>(\d\d):00 UTC: (\d+) ([a-z-]+)<\/title>/g)];
    expect(new Set(bars.map((m) => m[1]))).toEqual(new Set(runHours));
    expect(bars.reduce((n, m) => n + Number(m[2]), 0)).toBe(4);
    expect(chart).not.toMatch(/<script|style=/);
    expect(page.body).toMatch(/Attempt duration \(start to close, 4 closed in 24 h\): <strong>0\.0 s<\/strong>/);
    // another company's overview has no calls
    expect((await b.get('/dashboard/')).body).toContain('No calls in the last 24 hours.');
  });

  it('the overview counts calls today and lists the last attempts', async () => {
    const page = await a.get('/dashboard/');
    expect(page.body).toMatch(/<div class="n">4<\/div><div class="l">calls<\/div>/);
    expect(page.body).toMatch(/<div class="n">0<\/div><div class="l">succeeded<\/div>/);
    expect(page.body).toContain(`/dashboard/campaigns/${campaignId}/leads/${leads[0]}`);
    expect(page.body).toContain('+14155550702');
    const other = await b.get('/dashboard/');
    expect(other.body).toMatch(/<div class="n">0<\/div><div class="l">calls<\/div>/);
    expect(other.body).not.toContain('+14155550702');
  });

  it("shows a lead's attempts and why it is not called any more", async () => {
    const page = await a.get(`/dashboard/campaigns/${campaignId}/leads/${leads[0]}`);
    expect(page.body).toContain('Why is this lead not being called?');
    expect(page.body).toContain('All its attempts are used.');
    expect(page.body.match(/<td data-label="#" class="num">[12]<\/td><td data-label="Started">/g)).toHaveLength(2);
    const later = await a.get(`/dashboard/campaigns/${campaignId}/leads/${leads[2]}`);
    expect(later.body).toContain('Next due at <strong>2099-01-01 00:00 UTC</strong>');
    expect(later.body).toContain('Not called yet.');
  });

  it('recycles exhausted leads after confirming; another company cannot', async () => {
    const list = await a.get(`/dashboard/campaigns/${campaignId}/leads`);
    expect(list.body).toContain('2 leads have used all attempts.');
    await b.get('/dashboard/');
    expect((await b.get(`/dashboard/campaigns/${campaignId}/recycle`)).status).toBe(404);
    expect((await b.post(`/dashboard/campaigns/${campaignId}/recycle`)).status).toBe(404);
    expect((await a.get(`/dashboard/campaigns/${campaignId}/recycle`)).body).toContain('2 more attempts each');
    const done = await a.post(`/dashboard/campaigns/${campaignId}/recycle`);
    expect(done.location).toBe(`/dashboard/campaigns/${campaignId}/leads?done=recycled&n=2`);
    expect((await a.get(done.location!)).body).toContain('2 leads were recycled');
    const statuses = await f.db.kysely.selectFrom('leads').select('status').where('campaign_id', '=', campaignId).orderBy('seq').execute();
    expect(statuses.map((s) => s.status)).toEqual(['attempting', 'attempting', 'raw']);
    const lead = await a.get(`/dashboard/campaigns/${campaignId}/leads/${leads[0]}`);
    expect(lead.body).toContain('Why is this lead being called?');
  });
});
