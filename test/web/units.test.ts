/** The small pieces the pages rest on: escaping, password hashes, one-time passwords, redirects. */
import { describe, expect, it } from 'vitest';
import { safeNext } from '../../src/web/guard.js';
import { href, html, seg } from '../../src/web/html.js';
import { generateOneTimePassword, hashPassword, verifyPassword } from '../../src/web/passwords.js';

describe('html', () => {
  it('escapes every interpolated value, including in attributes, but not nested fragments', () => {
    const name = `<script>alert("x")</script>' onload='y`;
    const out = html`<p title="${name}">${name}${html`<b>${'&'}</b>`}${[1, '<', null, false]}</p>`.value;
    expect(out).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;y">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;y<b>&amp;</b>1&lt;</p>',
    );
  });

  it('keeps an id inside its path segment', () => {
    expect(href(`/campaigns/${seg('../settings?x=1#y')}/leads`, { status: 'raw', cursor: undefined })).toBe(
      '/dashboard/campaigns/..%2Fsettings%3Fx%3D1%23y/leads?status=raw',
    );
  });
});

describe('passwords', () => {
  it('hash with a fresh salt each time and verify only the right password', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse battery'), hashPassword('correct horse battery')]);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('anything', 'not-a-hash')).toBe(false);
  });

  it('one-time passwords are unambiguous to read and never repeat', () => {
    const seen = new Set(Array.from({ length: 1000 }, generateOneTimePassword));
    expect(seen.size).toBe(1000);
    for (const p of seen) expect(p).toMatch(/^[a-hjkmnp-z2-9]{5}(-[a-hjkmnp-z2-9]{5}){3}$/);
  });
});

describe('sign-in redirect target', () => {
  it('is a dashboard path or nothing', () => {
    expect(safeNext('/dashboard/campaigns?status=raw')).toBe('/dashboard/campaigns?status=raw');
    for (const bad of [
      '//evil.test/dashboard',
      'https://evil.test',
      '/dashboard//evil.test',
      '/api/v1/leads',
      '/dashboardx',
      '/dashboard/\\evil',
      5,
    ]) {
      expect(safeNext(bad)).toBeUndefined();
    }
  });
});
