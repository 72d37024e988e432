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
    expect(Object.values(PLATFORMS).filter((p) => p.requiresWebhookSecret).map((p) => p.name)).toEqual(['bland']);
  });

  it('an unknown name is an error listing the known ones', () => {
    expect(isPlatformName('simulate')).toBe(false);
    expect(isPlatformName('toString')).toBe(false);
    expect(platformFor('retell')).toBe(PLATFORMS.retell);
    expect(() => platformFor('plivo')).toThrow('unknown call platform "plivo" (one of vapi, retell, bland, twilio)');
  });
});
