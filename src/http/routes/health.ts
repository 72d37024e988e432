import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/index.js';
import { failure } from '../envelope.js';
import { healthDoc } from '../openapi-schemas.js';

const PING_TIMEOUT_MS = 1000;

/** GET /api/health: 200 when the database answers within a second, else 503 */
export function healthRoutes(store: Pick<Store, 'ping'>) {
  return async (app: FastifyInstance) => {
    app.get('/api/health', { schema: healthDoc, config: { ipLimited: true } }, async (_request, reply) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('ping timeout')), PING_TIMEOUT_MS);
      });
      try {
        await Promise.race([store.ping(), timeout]);
        return reply.code(200).send({ success: true, data: { status: 'ok', database: 'ok' }, error: null });
      } catch {
        return reply.code(503).send({ ...failure('Database unreachable'), data: { status: 'unavailable', database: 'unreachable' } });
      } finally {
        clearTimeout(timer);
      }
    });
  };
}
