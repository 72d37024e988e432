/** Campaign settings: each option's parser, and the checks across settings. */
import { describe, expect, it } from 'vitest';
import { checkSettings, parseSetting, SettingsError } from '../../src/campaigns/settings.js';

describe('parseSetting', () => {
  it.each([
    ['timezone', 'America/New_York', 'America/New_York'],
    ['timezone', 'europe/paris', 'Europe/Paris'],
    ['timezone', 'UTC', 'UTC'],
    ['hours', 'mon-fri 09:00-17:00', 'mon-fri 09:00-17:00'],
    ['hours', 'MON-SUN 00:00-24:00', 'mon-sun 00:00-24:00'],
    ['hours', 'sat+sun 10:00-14:00', 'sat-sun 10:00-14:00'],
    ['hours', 'fri 20:00-02:00', 'fri 20:00-02:00'],
    ['localWindow', '08:00-21:00', '08:00-21:00'],
    ['localWindow', ' 00:00-24:00 ', '00:00-24:00'],
    ['localWindow', '21:00-02:00', '21:00-02:00'],
    ['maxAttempts', '1', 1],
    ['maxAttempts', '100', 100],
    ['retryDelay', '0s', { retry_delay_ms: 0, retry_delays: '' }],
    ['retryDelay', '90s', { retry_delay_ms: 90_000, retry_delays: '' }],
    ['retryDelay', '30m', { retry_delay_ms: 1_800_000, retry_delays: '' }],
    ['retryDelay', '2h', { retry_delay_ms: 7_200_000, retry_delays: '' }],
    // per outcome: the default in retry_delay_ms, the others canonical and sorted
    ['retryDelay', 'no-answer=2h, busy=10m,default=30m', { retry_delay_ms: 1_800_000, retry_delays: 'busy=10m,no-answer=2h' }],
    ['retryDelay', 'busy=90s', { retry_delays: 'busy=1m30s' }],
    ['callTimeout', '30m', 1_800_000],
    ['callTimeout', '10s', 10_000],
    ['concurrency', '50', 50],
    ['callsPerSecond', '1', 1],
    ['callsPerSecond', '0.5', 0.5],
    ['callsPerSecond', '100', 100],
    ['predialUrl', 'https://crm.example/predial?x=1', 'https://crm.example/predial?x=1'],
    ['predialUrl', 'http://127.0.0.1:8080/p', 'http://127.0.0.1:8080/p'],
    ['predialSecret', 's', 's'],
    ['provider', 'simulate', 'simulate'],
    ['provider', 'webhook', 'webhook'],
    ['providerUrl', 'https://phone.example/call', 'https://phone.example/call'],
    ['simulateSuccess', '0', 0],
    ['simulateSuccess', '1', 1],
    ['simulateSuccess', '0.25', 0.25],
    ['simulateSuccess', '.5', 0.5],
    ['simulateSuccess', '1.0', 1],
    ['simulateFailures', 'no-answer=0.6,busy=0.25,voicemail=0.15', 'no-answer=0.6,busy=0.25,voicemail=0.15'],
    ['simulateFailures', ' voicemail = .15, busy=0.25 ,no-answer=0.6 ', 'no-answer=0.6,busy=0.25,voicemail=0.15'],
    ['simulateFailures', 'busy=1', 'busy=1'],
    ['simulateFailures', 'no-answer=0.1,busy=0.2,voicemail=0.7', 'no-answer=0.1,busy=0.2,voicemail=0.7'],
    ['simulateFailures', 'busy=0,voicemail=1.0', 'voicemail=1'],
    ['simulateDuration', '0s', '0s'],
    ['simulateDuration', '2s', '2s'],
    ['simulateDuration', '1s-5s', '1s-5s'],
    ['simulateDuration', ' 90s-2m ', '1m30s-2m'],
    ['simulateDuration', '3s-3s', '3s'],
  ] as const)('%s %j -> %j', (setting, raw, value) => {
    expect(parseSetting[setting](raw)).toEqual(value);
  });

  it.each([
    ['timezone', 'Mars/Base', /--timezone: invalid timezone "Mars\/Base"/],
    ['timezone', '+02:00', /--timezone/],
    ['timezone', '', /--timezone/],
    ['hours', 'mon-fri 9-17', /--hours: invalid hours/],
    ['hours', 'weekdays 09:00-17:00', /--hours: .*unknown day "weekdays"/],
    ['hours', 'mon-fri 09:00-09:00', /--hours: .*empty range/],
    ['hours', '', /--hours/],
    ['localWindow', '08:00-25:00', /--local-window: invalid local window/],
    ['localWindow', '8-21', /--local-window/],
    ['localWindow', 'mon 08:00-21:00', /--local-window/],
    ['maxAttempts', '0', /--max-attempts must be a whole number from 1 to 100/],
    ['maxAttempts', '101', /--max-attempts/],
    ['maxAttempts', '2.5', /--max-attempts/],
    ['maxAttempts', 'three', /--max-attempts/],
    ['retryDelay', '30 minutes', /--retry-delay: invalid duration/],
    ['retryDelay', '1h90m', /--retry-delay/],
    ['retryDelay', '-5m', /--retry-delay/],
    ['retryDelay', '500ms', /--retry-delay/],
    ['retryDelay', 'busy=10m,busy=20m', /--retry-delay: "busy" is given twice/],
    ['retryDelay', 'Busy=10m', /--retry-delay: "Busy" is not an outcome name/],
    ['retryDelay', 'busy=soon', /--retry-delay/],
    ['callTimeout', '5s', /--call-timeout: a call timeout is from 10s to 1d/],
    ['callTimeout', '2d', /--call-timeout/],
    ['concurrency', '0', /--concurrency/],
    ['concurrency', '-1', /--concurrency/],
    ['concurrency', '1001', /--concurrency/],
    ['predialUrl', 'crm.example/predial', /--predial-url must be an http:\/\/ or https:\/\/ URL/],
    ['predialUrl', 'file:///etc/passwd', /--predial-url/],
    ['predialSecret', '', /--predial-secret must not be empty/],
    ['callsPerSecond', '0', /--calls-per-second must be a number above 0 and at most 100/],
    ['callsPerSecond', '101', /--calls-per-second/],
    ['callsPerSecond', '-1', /--calls-per-second/],
    ['callsPerSecond', 'fast', /--calls-per-second/],
    ['provider', 'vonage', /--provider must be one of simulate, webhook, vapi, retell, bland, twilio/],
    ['providerUrl', 'ftp://phone.example', /--provider-url/],
    ['simulateSuccess', '1.5', /--simulate-success must be a probability from 0 to 1/],
    ['simulateSuccess', '-0.1', /--simulate-success/],
    ['simulateSuccess', 'half', /--simulate-success/],
    ['simulateSuccess', '', /--simulate-success/],
    ['simulateSuccess', '1e-1', /--simulate-success/],
    ['simulateFailures', 'no-answer=0.6,busy=0.25', /--simulate-failures: the shares must add up to 1; these add up to 0.85/],
    ['simulateFailures', 'no-answer=0.6,busy=0.5', /--simulate-failures: the shares must add up to 1; these add up to 1.1/],
    ['simulateFailures', 'hangup=1', /--simulate-failures: unknown outcome "hangup" \(use no-answer, busy, voicemail\)/],
    ['simulateFailures', 'answered=1', /--simulate-failures: unknown outcome "answered"/],
    ['simulateFailures', 'busy=0.5,busy=0.5', /--simulate-failures: "busy" is given twice/],
    ['simulateFailures', 'busy=1.5', /--simulate-failures: the share of busy must be a probability from 0 to 1/],
    ['simulateFailures', 'busy=-0.5,no-answer=1.5', /--simulate-failures: the share of busy/],
    ['simulateFailures', 'busy', /--simulate-failures: expected OUTCOME=SHARE/],
    ['simulateFailures', '', /--simulate-failures/],
    ['simulateDuration', '5s-1s', /--simulate-duration: .*5s is shorter|--simulate-duration: .*1s is shorter/],
    ['simulateDuration', '1s-', /--simulate-duration/],
    ['simulateDuration', '2 seconds', /--simulate-duration: invalid duration/],
    ['simulateDuration', '2d', /--simulate-duration: a simulated call lasts at most 1d/],
    ['simulateDuration', '', /--simulate-duration/],
  ] as const)('%s %j is refused', (setting, raw, message) => {
    expect(() => parseSetting[setting](raw)).toThrow(SettingsError);
    expect(() => parseSetting[setting](raw)).toThrow(message);
  });
});

describe('checkSettings', () => {
  it('the webhook provider needs its URL', () => {
    expect(() => checkSettings({ provider: 'webhook', provider_url: null })).toThrow('--provider webhook needs --provider-url');
    expect(() => checkSettings({ provider: 'webhook', provider_url: 'https://x.example' })).not.toThrow();
    expect(() => checkSettings({ provider: 'simulate', provider_url: null })).not.toThrow();
  });
});
