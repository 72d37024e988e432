import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { AppError, MESSAGES, validation } from '../errors.js';
import { nestedDeeperThan } from './json-depth.js';

/** deepest nesting of arrays and objects a request body may have; the deepest real body (bulk → lead → metadata) needs a few */
export const MAX_JSON_DEPTH = 64;

/** A body refused before it was parsed; its rate-limit hit is refunded (src/http/limits.ts). */
export class BodyTooDeepError extends AppError {
  constructor() {
    super('validation', `Request body is nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
  }
}

/**
 * Whether a JSON text may hold a `__proto__` or `constructor` key. A key
 * decodes to one of them only if the text holds the word or a `\u` escape
 * (JSON has no other escape that could spell a letter). `uctor` is in every
 * `constructor`, and V8 finds it faster: in a 1000-lead bulk body (164 KB),
 * 0.015 ms against 0.088 ms for the whole word. The three searches take 0.02
 * ms where secure-json-parse's two regular expressions took 0.14-0.19 ms.
 */
const mayPoison = (text: string) => text.includes('__proto__') || text.includes('uctor') || text.includes('\\u');

/**
 * Fastify's own JSON parser (it refuses __proto__ and constructor.prototype
 * keys), after a depth check of the body's bytes (so it is read as a Buffer
 * and decoded here, once, as Fastify would for a string parser); a text that
 * cannot hold either key is parsed by JSON.parse alone, and any it refuses
 * goes to Fastify's parser, which answers with its own error. With one
 * exception: a DELETE carrying `Content-Type: application/json` and no body
 * is simply a request without one. The spec says requests use that content
 * type, so clients set it on every call; DELETE /leads takes its input from
 * the query string, and refusing it for an empty body was a 400 on a valid
 * request.
 */
export function parseJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0 && request.method === 'DELETE') return done(null, undefined);
    if (nestedDeeperThan(bytes, MAX_JSON_DEPTH)) return done(new BodyTooDeepError(), undefined);
    // JSON text is UTF-8 (RFC 8259, 8.1), whatever charset the request names. Decoding
    // other bytes would turn each invalid one into U+FFFD: "José" sent as Latin-1 was
    // stored as "Jos\uFFFD", and "Josè" then refused as its duplicate. 4 µs for a
    // 1000-lead body (simdutf).
    if (!isUtf8(bytes)) return done(validation(MESSAGES.invalidJson), undefined);
    const text = bytes.toString('utf8');
    if (mayPoison(text)) return parse(request, text, done);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return parse(request, text, done);
    }
    return done(null, value);
  });
}
