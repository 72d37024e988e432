/**
 * A tenant (dashboard user) sets a predial URL or a webhook URL; the refusal reason is recorded on
 * the attempt (shown on the dashboard's lead activity page and in the API's attempts) or in the
 * webhook delivery log. When the host is a name, the reason names the internal address the
 * operator's DNS gave for it, so any tenant can map the internal network's names to addresses.
 */
import type dns from 'node:dns';
import { expect, it } from 'vitest';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import { signedPost } from '../../src/dialer/signed-post.js';

/** stands in for the deployment's internal DNS: a name only the operator's resolver knows */
const internalDns = ((name: string, _o: unknown, cb: (e: Error | null, a: dns.LookupAddress[]) => void) => {
  const answers: Record<string, string> = { 'billing-db.corp.internal': '10.31.7.22' };
  const a = answers[name];
  process.nextTick(() =>
    a ? cb(null, [{ address: a, family: 4 }]) : cb(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []),
  );
}) as unknown as typeof dns.lookup;

it("signedPost (predial, event webhooks): a refused host name's recorded reason does not reveal the internal address it resolved to", async () => {
  const policy = new OutboundPolicy(parseOutboundAllow(''), internalDns);
  const r = await signedPost({ url: 'http://billing-db.corp.internal:5432/', body: {}, secret: null, timeoutMs: 2000, outbound: policy });
  expect(r.ok).toBe(false);
  const reason = (r as { reason: string }).reason;
  expect(reason).toMatch(/refused by the outbound policy/);
  expect(reason).not.toContain('10.31.7.22');
});
