/** The platform registry: every name the CLI accepts maps to its adapter. */
import { describe, expect, it } from 'vitest';
import { isPlatformName, PLATFORMS, platformFor } from '../../src/dialer/providers/platforms/index.js';

describe('platforms', () => {
  it('knows vapi, retell, bland and twilio, each with its public API as the default base URL', () => {
    expect(Object.fromEntries(Object.values(PLATFORMS).map((p) => [p.name, p.defaultBaseUrl]))).toEqual({
      vapi: 'https://api.vapi.ai',
      retell: 'https://api.retellai.com',
      bland: 'https://api.bland.ai',
      twilio: 'https://api.twilio.com',
    });
    expect(
      Object.values(PLATFORMS)
        .filter((p) => p.requiresWebhookSecret)
        .map((p) => p.name),
    ).toEqual(['bland']);
  });

  it('an unknown name is an error listing the known ones', () => {
    expect(isPlatformName('simulate')).toBe(false);
    expect(isPlatformName('toString')).toBe(false);
    expect(platformFor('retell')).toBe(PLATFORMS.retell);
    expect(() => platformFor('plivo')).toThrow('unknown call platform "plivo" (one of vapi, retell, bland, twilio)');
  });
});

describe('outcome tables', () => {
  it('a reason named like an Object.prototype member maps like any unknown reason, never to a function', async () => {
    const { outcomeOf: vapiOutcome } = await import('../../src/dialer/providers/platforms/vapi.js');
    const { outcomeOf: retellOutcome } = await import('../../src/dialer/providers/platforms/retell.js');
    const { outcomeOf: blandOutcome } = await import('../../src/dialer/providers/platforms/bland.js');
    const { outcomeOf: twilioOutcome, twilio } = await import('../../src/dialer/providers/platforms/twilio.js');
    for (const reason of ['constructor', 'toString', '__proto__']) {
      expect(vapiOutcome(reason, undefined, undefined, undefined).outcome).toBe('failed');
      expect(retellOutcome({ disconnection_reason: reason }, false).outcome).toBe('failed');
      expect(blandOutcome({ queue_status: reason, answered_by: reason, status: reason }).outcome).toBe('failed');
      expect(twilioOutcome('completed', reason, '3').outcome).toBe('answered');
      expect(twilio.parse({ rawBody: `CallSid=CA1&CallStatus=${reason}`, headers: {}, url: 'https://x.example/e?attemptId=a' })).toEqual([
        { providerCallId: 'CA1', attemptId: 'a', terminal: false, progress: reason },
      ]);
    }
  });
});

describe('hostile keys', () => {
  it('a Twilio body with a __proto__ parameter is checked like any other, and a __proto__ metadata key stays a variable', async () => {
    const { twilio, formParams } = await import('../../src/dialer/providers/platforms/twilio.js');
    const { asStrings } = await import('../../src/dialer/providers/platforms/shared.js');
    const req = { rawBody: '__proto__=1&CallSid=CA1&CallStatus=busy', headers: { 'x-twilio-signature': 'x' }, url: 'https://x.example/e' };
    expect(
      twilio.verify(req, {
        secret: 't',
        webhookSecret: null,
        options: {},
        baseUrl: '',
        callbackUrl: '',
        timeoutMs: 1,
        request: async () => ({ ok: false, reason: '', sent: false }),
      }),
    ).toBe(false);
    expect(Object.keys(formParams(req.rawBody))).toEqual(['__proto__', 'CallSid', 'CallStatus']);
    expect(Object.keys(asStrings(JSON.parse('{"__proto__": 1, "a": 2}')))).toEqual(['__proto__', 'a']);
  });
});
