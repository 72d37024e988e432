/**
 * With SECRET_KEY, the predial secret (which also signs the webhook
 * provider's requests) is stored sealed, bound to its campaign, and the
 * dialer signs with the plain secret.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCampaign, createCompany, predialSecret, updateCampaign } from '../../src/campaigns/service.js';
import { parseSecretKey, secretsFor } from '../../src/crypto/secrets.js';
import { loadDialerCampaigns } from '../../src/dialer/campaign.js';
import type { Store } from '../../src/store/index.js';
import { startStub } from '../dialer/http-stub.js';
import { availableStores, useStore } from '../helpers/db.js';

const secrets = secretsFor(parseSecretKey(randomBytes(32).toString('base64')));

describe.each(await availableStores())('the predial secret at rest on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it("is sealed with SECRET_KEY, opens only for its campaign, and signs the webhook provider's calls in plain", async () => {
    const stub = await startStub('pre-secret-1', () => ({ body: { success: true, outcome: 'answered' } }));
    try {
      const { companyId } = await createCompany(db, 'Sealed');
      const { campaignId } = await createCampaign(
        db,
        { companyId, name: 'Sealed', provider: 'webhook', provider_url: stub.url, predial_secret: 'pre-secret-1' },
        Date.now(),
        secrets,
      );
      const row = (await db.campaigns.byId(campaignId))!;
      expect(row.predial_secret).toMatch(/^enc:v1:/);
      expect(JSON.stringify(row)).not.toContain('pre-secret-1');
      expect(predialSecret(row, secrets)).toBe('pre-secret-1');
      expect(() => predialSecret({ ...row, id: 'cp_other' }, secrets)).toThrow(/integrity/);
      await updateCampaign(db, campaignId, { predial_secret: 'pre-secret-2' }, secrets);
      const [c] = await loadDialerCampaigns(db, [campaignId], { secrets }, (_, err) => {
        throw err;
      });
      expect(c!.predialSecret).toBe('pre-secret-2');
      // the webhook provider built from the sealed row signs with the plain secret
      const stub2 = await startStub('pre-secret-2', () => ({ body: { success: true, outcome: 'answered' } }));
      try {
        await updateCampaign(db, campaignId, { provider_url: stub2.url }, secrets);
        const [d] = await loadDialerCampaigns(db, [campaignId], { secrets }, (_, err) => {
          throw err;
        });
        const request = {
          attemptId: 'at_s1',
          leadId: 'ld_1',
          campaignId,
          phoneNumber: '+14155550123',
          externalId: null,
          metadata: {},
          attempt: 1,
        };
        await d!.provider.place(request, new AbortController().signal);
        expect(stub2.requests[0]!.signed).toBe(true);
      } finally {
        await stub2.close();
      }
    } finally {
      await stub.close();
    }
  });
});
