/**
 * What protects the server from its clients rather than from bad data: the
 * connection limits and timeouts (config.server, docs/operations.md), the
 * envelope for what is refused before any route or hook runs, and the
 * response headers a careful API sends.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyHttpOptions, type FastifyInstance, type FastifyReply } from 'fastify';
import type { ServerLimits } from '../config.js';
import { failure } from './envelope.js';

/** helmet's hook never runs for these answers; the two headers that matter for a JSON error body */
const BARE_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'" };

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'Request not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'Request headers are too large'],
};

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request
 * (malformed, a head over the size limit, the headers or request timeout),
 * in the envelope. Unlike Fastify's default it logs nothing: that logged the
 * raw request, x-api-key header included, and a flood of these is no news.
 */
function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'Bad request'];
  // As Node itself does: once a response has begun on this socket, a second one would corrupt it.
  const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !response?.headersSent) {
    const body = JSON.stringify(failure(message));
    const headers = Object.entries(BARE_HEADERS)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n${headers}` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function serverOptions(limits: ServerLimits): FastifyHttpOptions<Server> {
  return {
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderSize,
      // Node sweeps for expired heads and bodies only this often (30 s by
      // default), which would let a slow-loris socket live 30 s past its deadline.
      connectionsCheckingInterval: Math.min(1000, Math.ceil(limits.headersTimeoutMs / 2)),
    },
    clientErrorHandler,
    // The router refuses a path parameter longer than maxParamLength (100 by
    // default) through frameworkErrors, before any hook: a 400 ahead of the
    // 401 and uncounted by the per-IP limiter. No parameter can be longer than
    // the request head, so at that length the router refuses none, and each
    // route's schema (attemptId: at most 100) answers after authentication.
    routerOptions: { maxParamLength: limits.maxHeaderSize },
    // A URL that cannot be percent-decoded never reaches a route or a hook;
    // Fastify's own answer is not the envelope and echoes the path back.
    frameworkErrors: (_err, _request, reply) => badUrl(reply as FastifyReply),
  };
}

function badUrl(reply: FastifyReply): void {
  void reply.code(400).headers(BARE_HEADERS).send(failure('Bad request: the URL is not valid'));
}

/**
 * Helmet's defaults, with a tighter policy that still fits every page served
 * here (/docs, /dashboard): nothing from other origins, never framed.
 * upgrade-insecure-requests is left out: on a plain-HTTP deployment (a LAN,
 * TLS at a proxy added later) it would make browsers fetch the pages' own
 * scripts over https and break them. Styles keep 'unsafe-inline' for Swagger UI.
 */
export const HELMET_OPTIONS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      baseUri: ["'none'"],
      connectSrc: ["'self'"],
      fontSrc: ["'self'", 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      imgSrc: ["'self'", 'data:'],
      objectSrc: ["'none'"],
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
    },
  },
  xFrameOptions: { action: 'deny' as const },
};

type HeaderList = readonly (readonly [string, number | string | string[]])[];
let helmetHeaderList: Promise<HeaderList> | undefined;

/**
 * The headers @fastify/helmet sets with HELMET_OPTIONS, names as helmet spells
 * them, in its order: helmet itself, run once on a scratch instance, so that
 * it stays the one source of the values. They depend on nothing in the request
 * (no CSP nonces, no per-route options here).
 */
function helmetHeaders(): Promise<HeaderList> {
  helmetHeaderList ??= (async () => {
    const scratch = Fastify({ logger: false });
    let list: HeaderList = [];
    await scratch.register(helmet, HELMET_OPTIONS);
    scratch.addHook('onRequest', (_request, reply, done) => {
      // getRawHeaderNames (Node >= 15.13) keeps helmet's spelling; @types/node 20.11 lacks it
      const raw = reply.raw as typeof reply.raw & { getRawHeaderNames(): string[] };
      list = raw.getRawHeaderNames().map((name) => [name, raw.getHeader(name)!] as const);
      done();
    });
    scratch.get('/', (_request, reply) => reply.send(''));
    await scratch.inject({ method: 'GET', url: '/' });
    await scratch.close();
    if (list.length === 0) throw new Error('helmet set no headers');
    return list;
  })();
  return helmetHeaderList;
}

export async function harden(app: FastifyInstance, limits: ServerLimits): Promise<void> {
  // Excess sockets are closed on accept, before they can use up the file
  // descriptors the database and the well-behaved clients need.
  if (limits.maxConnections > 0) app.server.maxConnections = limits.maxConnections;
  // helmet's headers, computed once (helmetHeaders) and set in one synchronous
  // hook, on the Node response as helmet sets them (so a route's own
  // reply.header still wins, as the dashboard's policy does). Registering
  // @fastify/helmet here instead added two hooks, one async, that rebuilt
  // every header and re-parsed the CSP directives on every request. Small
  // calls at 50 connections, SQLite, server CPU per request: list limit=1
  // 147 → 97 µs, single create 290 → 232 µs. Same header names, values and order on every response
  // (compared byte for byte, volatile values aside, across 17 kinds of request).
  const headers = await helmetHeaders();
  app.addHook('onRequest', (_request, reply, done) => {
    const raw = reply.raw;
    for (const [name, value] of headers) raw.setHeader(name, value);
    done();
  });
}
