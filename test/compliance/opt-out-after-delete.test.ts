/**
 * An opt-out a platform reports after the call's outcome (Retell's
 * call_analyzed comes after call_ended) lists the number even when the lead
 * was deleted during the call. Closing the attempt (call_ended) found the lead
 * gone and replaced the attempt's number by its digest; the number is then
 * taken from the platform's own record of the call (Retell's `to_number`),
 * and listed only when its digest is the attempt's, so a payload naming
 * another number lists nothing. docs/compliance.md "Deleting data".
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dialer } from '../../src/dialer/worker.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { attemptRows, makeCampaign, seedLeads } from '../dialer/support.js';
import { RetellFake } from '../fakes/retell.js';
import { localRequester, PUBLIC_URL } from '../providers/platform-cases.js';

const silent = pino({ level: 'silent' });
const FROM = '+14155550100';

describe.each(await availableStores())('a late opt-out of a lead deleted during its call on %s', (kind) => {
  let f: Fixture;
  let retell: RetellFake;
  beforeAll(async () => {
    f = await makeFixture(kind, { env: { PUBLIC_URL } });
    retell = await RetellFake.start({ apiKey: 'retell-key', numbers: [FROM] });
  });
  afterAll(async () => {
    await retell?.close();
    await f?.close();
  });

  const post = async (w: { url: string; headers: Record<string, string>; body: string }) => {
    const res = await f.app.inject({ method: 'POST', url: w.url.slice(PUBLIC_URL.length), headers: w.headers, payload: w.body });
    return res.statusCode;
  };

  /** places a Retell call to `phoneNumber`, deletes its lead mid-call, and ends the call (call_ended) with an opt-out in its analysis */
  const callDeleteAndEnd = async (phoneNumber: string) => {
    const campaignId = await makeCampaign(f.db, {
      provider: 'retell',
      provider_secret: 'retell-key',
      provider_options: JSON.stringify({ fromNumber: FROM }),
      provider_base_url: retell.baseUrl,
    });
    const [lead] = await seedLeads(f.db, campaignId, [{ phoneNumber }]);
    await new Dialer({ store: f.db, logger: silent, campaignIds: [campaignId], publicUrl: PUBLIC_URL, request: localRequester }).runOnce();
    const [attempt] = await attemptRows(f.db, lead!);
    expect(attempt).toMatchObject({ state: 'accepted', phone_number: phoneNumber });
    expect(await f.db.leads.deleteOne(campaignId, { phoneNumber })).toBe(true);
    const id = attempt!.provider_call_id!;
    retell.end(id, { reason: 'user_hangup', analysis: { custom_analysis_data: { do_not_call: true } } });
    expect(await post(retell.webhook(id, 'call_ended'))).toBe(200);
    // the call is over and its number is gone from the call log
    expect(await attemptRows(f.db, lead!)).toMatchObject([{ state: 'closed', outcome: 'answered', phone_number: null }]);
    return { id, companyId: attempt!.company_id };
  };

  it('lists the number the call was made to', async () => {
    const phoneNumber = '+14155557321';
    const { id, companyId } = await callDeleteAndEnd(phoneNumber);
    expect(await post(retell.webhook(id, 'call_analyzed'))).toBe(200);
    expect(await f.db.dnc.get(companyId, phoneNumber)).toMatchObject({ source: 'call' });
  });

  it('lists nothing when the payload names a number the call was not made to', async () => {
    const phoneNumber = '+14155557322';
    const other = '+14155557323';
    const { id, companyId } = await callDeleteAndEnd(phoneNumber);
    retell.calls.get(id)!.to_number = other;
    expect(await post(retell.webhook(id, 'call_analyzed'))).toBe(200);
    expect(await f.db.dnc.get(companyId, other)).toBeUndefined();
    expect(await f.db.dnc.get(companyId, phoneNumber)).toBeUndefined();
  });
});
