/**
 * A real `leadline serve` child (dist/, built by `npm test`) on a fresh store
 * seeded with one company, two campaigns and keys: what an integrator's
 * program talks to.
 */
import { createKey } from '../../src/auth/service.js';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { createTestStore, type StoreKind } from '../helpers/db.js';
import { startServerProcess } from '../helpers/server-process.js';

export interface SeededServer {
  readonly url: string;
  readonly campaignId: string;
  /** a campaign with a predial function, where externalId-only leads are allowed */
  readonly prefetchCampaignId: string;
  readonly writeKey: string;
  readonly readKey: string;
  stop(): Promise<void>;
}

export async function startSeededServer(kind: StoreKind, env: Record<string, string> = {}): Promise<SeededServer> {
  const store = await createTestStore(kind);
  const db = await store.open();
  const { companyId } = await createCompany(db, 'Integrator Inc');
  const { campaignId } = await createCampaign(db, { companyId, name: 'Spring' });
  const { campaignId: prefetchCampaignId } = await createCampaign(db, {
    companyId,
    name: 'Prefetch',
    predial_url: 'http://127.0.0.1:9/predial',
  });
  const writeKey = (await createKey(db, { companyId, name: 'importer', scope: 'write' })).key;
  const readKey = (await createKey(db, { companyId, name: 'exporter', scope: 'read' })).key;
  await db.close();
  const server = await startServerProcess({
    DATABASE_URL: store.url,
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_PER_HOUR: '1000000',
    RATE_LIMIT_BULK_PER_MINUTE: '100000',
    ...env,
  });
  return {
    url: server.url,
    campaignId,
    prefetchCampaignId,
    writeKey,
    readKey,
    async stop() {
      await server.stop();
      await store.drop();
    },
  };
}
