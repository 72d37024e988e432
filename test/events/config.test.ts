/** EVENT_RETENTION: how long events and webhook tries are kept (docs/events.md "Retention"). */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('EVENT_RETENTION', () => {
  it('defaults to 30 days and reads days, hours and minutes', () => {
    expect(loadConfig({}).eventRetentionMs).toBe(30 * 86_400_000);
    expect(loadConfig({ EVENT_RETENTION: '7d' }).eventRetentionMs).toBe(7 * 86_400_000);
    expect(loadConfig({ EVENT_RETENTION: '12h' }).eventRetentionMs).toBe(12 * 3_600_000);
    expect(loadConfig({ EVENT_RETENTION: ' 90m ' }).eventRetentionMs).toBe(90 * 60_000);
  });

  it.each(['0d', '30', '1w', '-1d', '1.5d', 'forever'])('%j stops the process with a message naming it', (raw) => {
    expect(() => loadConfig({ EVENT_RETENTION: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ EVENT_RETENTION: raw })).toThrow(/EVENT_RETENTION/);
  });
});
