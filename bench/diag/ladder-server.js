/**
 * One rung of the small-call ladder (bench/diag/ladder.js): a server that adds
 * one layer of what leadline does per request to the rung below it, and
 * answers GET with a body of BYTES bytes. RUNG: fastify (bare), log (+ one
 * pino line per request to a file, as leadline logs), helmet (+ leadline's own
 * helmet headers, dist/http/hardening.js: helmet's header set computed once,
 * set in one hook), hooks (+ three async hooks: auth-shaped onRequest, onSend
 * header, onResponse log).
 */
import Fastify from 'fastify';
import pino from 'pino';
import { harden } from '../../dist/http/hardening.js';

const rung = process.env.RUNG ?? 'fastify';
const bytes = Number(process.env.BYTES ?? 373);
const order = ['fastify', 'log', 'helmet', 'hooks'];
const has = (name) => order.indexOf(rung) >= order.indexOf(name);
const head = '{"success":true,"data":{"x":"';
const tail = '"},"error":null}';
const body = head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail;

const app = Fastify(
  has('log')
    ? { loggerInstance: pino({ level: 'info' }, pino.destination(process.env.LOG_FILE ?? '/dev/null')), disableRequestLogging: true }
    : { logger: false },
);
if (has('helmet')) await harden(app, { maxConnections: 0 });
if (has('hooks')) {
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/api') && typeof request.headers['x-api-key'] !== 'string') throw new Error('no key');
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
}
if (has('log')) {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });
}
app.get('/api/v1/leads', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
app.get('/health', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
