/**
 * The overview says whether a dialer is calling the company's campaigns, from
 * the dialers' heartbeats (app.inject, each store), without showing anything
 * of a dialer that serves only another company.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Browser, signedInUser } from './support.js';

describe.each(await availableStores())('overview: is a dialer running, on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  beforeAll(async () => {
    f = await makeFixture(kind);
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'overview@a.test');
  });
  afterAll(() => f.close());
  const beat = (id: string, campaigns: string, at: number) =>
    f.db.dialers.beat({
      id,
      host: 'worker-host-7',
      pid: 4242,
      campaigns,
      started_at: at - 60_000,
      heartbeat_at: at,
      calls_in_flight: 3,
      last_claim_at: at,
    });

  it('says no dialer is running, then counts the live ones that call the company', async () => {
    expect((await a.get('/dashboard/')).body).toContain('No dialer is running');
    // another company's dialer, and one silent for 20 s, do not count
    await beat('dl_b', f.ids.campaignB, f.clock.now);
    await beat('dl_stale', 'all', f.clock.now - 20_000);
    const none = (await a.get('/dashboard/')).body;
    expect(none).toContain('No dialer is running');
    expect(none).not.toContain('worker-host-7');

    await beat('dl_a', `${f.ids.campaignB},${f.ids.campaignA2}`, f.clock.now - 2_000);
    await beat('dl_all', 'all', f.clock.now - 4_000);
    const running = (await a.get('/dashboard/')).body;
    expect(running).toContain('<strong>Dialer running</strong>: 2 workers, last heartbeat 2 s ago.');
    expect(running).not.toContain(f.ids.campaignB);
    expect(running).not.toContain('worker-host-7');
    f.clock.advance(16_000);
    expect((await a.get('/dashboard/')).body).toContain('No dialer is running');
  });
});
