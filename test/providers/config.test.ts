/** PUBLIC_URL: where the voice platforms reach `leadline serve`. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('PUBLIC_URL', () => {
  it('is an http(s) origin, optionally with a path prefix; a trailing slash is dropped; unset is undefined', () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: ' ' }).publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://leadline.example.com/' }).publicUrl).toBe('https://leadline.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://10.0.0.5:3000/leadline' }).publicUrl).toBe('http://10.0.0.5:3000/leadline');
  });

  it.each(['leadline.example.com', 'ftp://leadline.example.com', 'https://leadline.example.com/?a=1', 'https://u:p@leadline.example.com'])(
    '%s is a ConfigError naming the variable',
    (raw) => {
      expect(() => loadConfig({ PUBLIC_URL: raw })).toThrow(ConfigError);
      expect(() => loadConfig({ PUBLIC_URL: raw })).toThrow(/^PUBLIC_URL must be an http\(s\) URL/);
    },
  );
});
