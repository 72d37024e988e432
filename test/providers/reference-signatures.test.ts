/**
 * The adapters' webhook verification against each platform's signing scheme,
 * written again here from the platform's own reference (not from the adapter
 * or the fake, which could share a mistake):
 *   - Retell: RetellAI/retell-typescript-sdk src/lib/webhook_auth.ts (sign: `v=${ts},d=${hmacSha256Hex(key, body + ts)}`)
 *   - Bland:  https://docs.bland.ai/tutorials/webhook-signing (X-Webhook-Signature = hex HMAC-SHA256 of the body)
 *   - Vapi:   HMACAuthenticationPlan defaults (x-signature, x-timestamp, '{timestamp}.{body}', hex)
 *   - Twilio: twilio/twilio-node src/webhooks/webhooks.ts getExpectedTwilioSignature (arrays: deduped, sorted)
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bland } from '../../src/dialer/providers/platforms/bland.js';
import { retell } from '../../src/dialer/providers/platforms/retell.js';
import { twilio } from '../../src/dialer/providers/platforms/twilio.js';
import type { PlatformContext } from '../../src/dialer/providers/platforms/types.js';
import { vapi } from '../../src/dialer/providers/platforms/vapi.js';

const ctx = (secret: string, webhookSecret: string | null = null): PlatformContext => ({
  secret,
  webhookSecret,
  options: {},
  baseUrl: 'http://127.0.0.1:9',
  callbackUrl: '',
  timeoutMs: 1000,
  request: async () => ({ ok: false, reason: 'unused', sent: false }),
});

describe('reference signing schemes', () => {
  it('Retell: retell-sdk sign() output verifies', () => {
    const body = JSON.stringify({ event: 'call_ended', call: { call_id: 'c1' } });
    const ts = Date.now();
    const sig = `v=${ts},d=${createHmac('sha256', 'key_1')
      .update(body + ts)
      .digest('hex')}`;
    const req = { rawBody: body, headers: { 'x-retell-signature': sig }, url: 'https://x/y' };
    expect(retell.verify(req, ctx('key_1'))).toBe(true);
    expect(retell.verify(req, ctx('key_2'))).toBe(false);
  });

  it('Bland: hex HMAC-SHA256 of the body with the signing secret', () => {
    const body = JSON.stringify({ call_id: 'b1', completed: true });
    const sig = createHmac('sha256', 'whsec').update(body).digest('hex');
    expect(bland.verify({ rawBody: body, headers: { 'x-webhook-signature': sig }, url: 'https://x/y' }, ctx('api', 'whsec'))).toBe(true);
  });

  it('Vapi: HMAC credential with the documented defaults', () => {
    const body = JSON.stringify({ message: { type: 'status-update', status: 'ringing', call: { id: 'v1' } } });
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = createHmac('sha256', 'hm').update(`${ts}.${body}`).digest('hex');
    expect(vapi.verify({ rawBody: body, headers: { 'x-signature': sig, 'x-timestamp': ts }, url: 'https://x/y' }, ctx('api', 'hm'))).toBe(
      true,
    );
  });

  it('Twilio: twilio-node getExpectedTwilioSignature (with and without the default port)', () => {
    const url = 'https://leadline.example.com/api/v1/providers/twilio/events?attemptId=at_1';
    const params: Record<string, string> = { CallSid: 'CA1', CallStatus: 'completed', AccountSid: 'AC1', CallDuration: '12' };
    const sign = (u: string) =>
      createHmac('sha1', 'tok')
        .update(
          Buffer.from(
            Object.keys(params)
              .sort()
              .reduce((acc, k) => acc + k + params[k], u),
            'utf-8',
          ),
        )
        .digest('base64');
    const body = new URLSearchParams(params).toString();
    for (const signed of [url, 'https://leadline.example.com:443/api/v1/providers/twilio/events?attemptId=at_1']) {
      expect(twilio.verify({ rawBody: body, headers: { 'x-twilio-signature': sign(signed) }, url }, ctx('tok'))).toBe(true);
    }
  });
});
