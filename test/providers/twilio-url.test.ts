/**
 * A lead's metadata (written by any API client with the write scope, e.g. a lead vendor's
 * campaign-restricted key) must not rewrite the parts of the TwiML URL the operator configured
 * (`--provider-option url=https://agent.example.com/twiml?voice=alice&token=...`). leadId,
 * attemptId and externalId are protected from metadata of the same name; the operator's own
 * query parameters are not.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { twilio } from '../../src/dialer/providers/platforms/twilio.js';
import type { PlatformContext } from '../../src/dialer/providers/platforms/types.js';
import { TwilioFake } from '../fakes/twilio.js';
import { callRequest, context, never } from './support.js';

const SID = `AC${'2e'.repeat(16)}`;
const TOKEN = 'twilio-auth-token-review';
const OPERATOR_URL = 'https://agent.example.com/twiml?flow=renewals&auth=operator-shared-token';
let fake: TwilioFake;
let ctx: PlatformContext;

beforeEach(async () => {
  fake = await TwilioFake.start({ accountSid: SID, authToken: TOKEN });
  ctx = context({ secret: TOKEN, baseUrl: fake.baseUrl, options: { accountSid: SID, from: '+14155550100', url: OPERATOR_URL } });
});
afterEach(async () => {
  await fake.close();
});

it("twilio: lead metadata cannot overwrite the operator's own query parameters in the TwiML Url sent to Twilio", async () => {
  const r = await twilio.place(callRequest({ metadata: { name: 'Ada', flow: 'attacker-flow', auth: 'attacker-token' } }), ctx, never);
  expect(r.kind).toBe('accepted');
  const [req] = fake.creates();
  const app = new URL(new URLSearchParams(req!.raw).get('Url')!);
  // what the operator configured must reach the TwiML app unchanged
  expect(app.searchParams.getAll('flow')).toEqual(['renewals']);
  expect(app.searchParams.getAll('auth')).toEqual(['operator-shared-token']);
});
