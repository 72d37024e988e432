/**
 * --regional-rules (docs/compliance.md, "Regional calling rules"): under `us`,
 * the default, a US number is called only in the hours its state allows
 * automated calls, and not on US federal holidays where its state forbids
 * holiday calls; the lead is given back due at the state's next opening, and
 * explain says why. `off` leaves the campaign's own window. On a real
 * database, with the dialer's clock set.
 */
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createCampaign, createCompany, updateCampaign } from '../../src/campaigns/service.js';
import { parseSetting } from '../../src/campaigns/settings.js';
import { describe as describeCampaign } from '../../src/cli/campaign-settings.js';
import { regionalLimitFor, withRegionalLimit } from '../../src/compliance/regional-rules.js';
import { explainLead } from '../../src/dialer/explain.js';
import { parseClosedDates } from '../../src/scheduling/closed-dates.js';
import { formatHours, parseLocalWindow } from '../../src/scheduling/hours.js';
import { migrations } from '../../src/db/migrations.js';
import { openStore, type Store } from '../../src/store/index.js';
import { availableStores, createTestStore, useStore } from '../helpers/db.js';
import { attemptRows, dialerAt, leadRow, makeCampaign, oldSchemaCampaign, seedLeads } from '../dialer/support.js';

const ALABAMA = '+12055550100'; // 205: Birmingham, Alabama (Central time)
const CALIFORNIA = '+14155550100'; // 415: San Francisco (Pacific time)
const NEW_YORK = '+12125550100'; // 212: no state rule stricter than federal
const TORONTO = '+14165550100'; // 416: Canada, no US state
const SUNDAY_NOON_CENTRAL = Date.parse('2026-11-29T18:00:00.000Z');
const MONDAY_8AM_CENTRAL = '2026-11-30T14:00:00.000Z';

describe('which rule a number gets', () => {
  it('a US number gets its state, a Canadian number, no number or rules off get none', () => {
    expect(regionalLimitFor('us', ALABAMA)).toMatchObject({
      state: 'AL',
      label: 'Alabama (AL): mon-sat 08:00-20:00, no calls on US federal holidays',
    });
    expect(formatHours(regionalLimitFor('us', CALIFORNIA)!.hours)).toBe('mon-sun 09:00-21:00');
    expect(regionalLimitFor('us', CALIFORNIA)!.closedDates).toBeNull();
    expect(regionalLimitFor('us', NEW_YORK)).toMatchObject({ state: 'NY', label: 'New York (NY): mon-sun 08:00-21:00' });
    expect(regionalLimitFor('us', TORONTO)).toBeNull();
    expect(regionalLimitFor('us', null)).toBeNull();
    expect(regionalLimitFor('off', ALABAMA)).toBeNull();
  });

  it("narrows the campaign's window and adds the federal holidays to its closed dates", () => {
    const own = { window: parseLocalWindow('07:00-22:00'), closed: parseClosedDates('2026-12-24') };
    const { window, closed } = withRegionalLimit(own, regionalLimitFor('us', ALABAMA));
    expect(formatHours(window)).toBe('mon-sat 08:00-20:00');
    expect(closed).toMatchObject({ spec: 'us-federal,2026-12-24', usFederal: true });
    expect(closed!.dates.has('2026-12-24')).toBe(true);
    expect(withRegionalLimit(own, null)).toBe(own);
  });

  it('the setting takes us or off, in any case, and says what it takes otherwise', () => {
    expect(parseSetting.regionalRules(' US ')).toBe('us');
    expect(parseSetting.regionalRules('off')).toBe('off');
    expect(() => parseSetting.regionalRules('ca')).toThrow('--regional-rules must be us or off, got "ca"');
  });
});

describe.each(await availableStores())('regional rules in the dialer on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  const worker = (campaignId: string, now: number) => dialerAt(db, campaignId, now);

  it('a new campaign has them on', async () => {
    const { companyId } = await createCompany(db, 'Rules Co');
    const { campaignId } = await createCampaign(db, { companyId, name: 'Default' });
    expect((await db.campaigns.byId(campaignId))!.regional_rules).toBe('us');
  });

  it('an Alabama number is not called on Sunday, even in an always-open campaign; it is due Monday 08:00 its time, and explain says why', async () => {
    const c = await makeCampaign(db, { regional_rules: 'us' });
    const [al, ny] = await seedLeads(db, c, [{ phoneNumber: ALABAMA }, { phoneNumber: NEW_YORK }]);
    const why = await explainLead(db, c, { phoneNumber: ALABAMA }, SUNDAY_NOON_CENTRAL);
    expect(why).toMatchObject({ due: false, reasons: ["outside the state's calling hours"] });
    expect(why.details["outside the state's calling hours"]).toBe('Alabama (AL): mon-sat 08:00-20:00, no calls on US federal holidays');
    expect(why.nextDueAt?.toISOString()).toBe(MONDAY_8AM_CENTRAL);

    // the New York lead is called; the Alabama lead is given back, due Monday at 08:00 Central
    expect(await worker(c, SUNDAY_NOON_CENTRAL).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, ny!))!.status).toBe('concluded');
    expect(await attemptRows(db, al!)).toEqual([]);
    const held = await leadRow(db, al!);
    expect(held).toMatchObject({ status: 'raw', claimed_by: null, attempts: 0 });
    expect(held!.next_attempt_at).toBe(MONDAY_8AM_CENTRAL);
    // the claim does not take it again before then, and does after
    expect(await worker(c, Date.parse(MONDAY_8AM_CENTRAL) - 60_000).runOnce()).toMatchObject({ attempts: 0 });
    // (runOnce takes the leads due before the run starts)
    expect(await worker(c, Date.parse(MONDAY_8AM_CENTRAL) + 1000).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, al!))!.status).toBe('concluded');
  });

  it('off: the Alabama number is called on Sunday', async () => {
    const c = await makeCampaign(db, { regional_rules: 'us' });
    const [al] = await seedLeads(db, c, [{ phoneNumber: ALABAMA }]);
    await updateCampaign(db, c, { regional_rules: 'off' });
    expect((await explainLead(db, c, { phoneNumber: ALABAMA }, SUNDAY_NOON_CENTRAL)).due).toBe(true);
    expect(await worker(c, SUNDAY_NOON_CENTRAL).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, al!))!.status).toBe('concluded');
  });

  it.each(['US', 'on', ''])('a value written around the CLI (%j) is not read as off: the campaign calls nobody', async (value) => {
    const c = await makeCampaign(db, { regional_rules: 'us' });
    const [al] = await seedLeads(db, c, [{ phoneNumber: ALABAMA }]);
    await db.kysely.updateTable('campaigns').set({ regional_rules: value }).where('id', '=', c).execute();
    expect(await worker(c, SUNDAY_NOON_CENTRAL).runOnce()).toMatchObject({ attempts: 0 });
    expect(await attemptRows(db, al!)).toEqual([]);
    expect(await leadRow(db, al!)).toMatchObject({ status: 'raw', claimed_by: null });
    // campaign show does not print it as off
    expect(describeCampaign((await db.campaigns.byId(c))!)).toContain(
      `state rules:   ${JSON.stringify(value)}, not us or off: nobody is called`,
    );
  });

  it('a state that forbids holiday calls gets none on a federal holiday; one that does not is called', async () => {
    const c = await makeCampaign(db, { regional_rules: 'us' });
    const [al, ca] = await seedLeads(db, c, [{ phoneNumber: ALABAMA }, { phoneNumber: CALIFORNIA }]);
    const christmas = Date.parse('2026-12-25T18:00:00.000Z'); // Friday, 12:00 in Alabama, 10:00 in California
    const why = await explainLead(db, c, { phoneNumber: ALABAMA }, christmas);
    expect(why.reasons).toEqual(["outside the state's calling hours"]);
    expect(why.nextDueAt?.toISOString()).toBe('2026-12-26T14:00:00.000Z'); // Saturday 08:00 Central
    expect(await worker(c, christmas).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, ca!))!.status).toBe('concluded');
    expect((await leadRow(db, al!))!.status).toBe('raw');
  });

  it("narrows the campaign's own local window: California's automated calls start at 09:00", async () => {
    const c = await makeCampaign(db, { regional_rules: 'us', local_window: '08:00-21:00' });
    const [ca] = await seedLeads(db, c, [{ phoneNumber: CALIFORNIA }]);
    const early = Date.parse('2026-12-01T16:30:00.000Z'); // Tuesday 08:30 Pacific
    expect(await worker(c, early).runOnce()).toMatchObject({ attempts: 0 });
    expect((await leadRow(db, ca!))!.next_attempt_at).toBe('2026-12-01T17:00:00.000Z');
    const why = await explainLead(db, c, { phoneNumber: CALIFORNIA }, early);
    expect(why.reasons).toEqual(['scheduled later', "outside the state's calling hours"]);
    expect(await worker(c, Date.parse('2026-12-01T17:00:01.000Z')).runOnce()).toMatchObject({ attempts: 1 });
  });
});

describe.each(await availableStores())('migration 0016 on %s', (kind) => {
  it('a campaign that existed before the setting gets the rules too', async () => {
    const store = await createTestStore(kind);
    const db = openStore(store.config);
    try {
      const provider = { getMigrations: async () => migrations(db.dialect) };
      const { error } = await new Migrator({ db: db.kysely, provider }).migrateTo('0015_number_digests');
      if (error) throw error;
      const c = await oldSchemaCampaign(db);
      await db.migrate();
      expect((await db.campaigns.byId(c))!.regional_rules).toBe('us');
    } finally {
      await db.close();
      await store.drop();
    }
  });
});
