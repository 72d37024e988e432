/**
 * The OpenAPI document without a server: the real app is built over a
 * throwaway in-memory SQLite and asked for its document, so `leadline openapi`,
 * the client generator and the linter all see exactly what a server serves.
 */
import { loadConfig } from '../config.js';
import { openStore } from '../store/index.js';
import { MemoryRateLimiter } from '../ratelimit/memory.js';
import { buildApp } from './app.js';
import { documentText } from './openapi.js';

export async function openApiDocumentText(): Promise<string> {
  const config = { ...loadConfig({}), database: { kind: 'sqlite', path: ':memory:' } as const };
  const store = openStore(config.database);
  const limiter = new MemoryRateLimiter();
  const app = await buildApp({ config, store, limiter });
  try {
    await app.ready();
    return documentText(app);
  } finally {
    await app.close();
    await limiter.close();
    await store.close();
  }
}
