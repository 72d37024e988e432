/**
 * The one mapping from errors to HTTP statuses and envelope messages. Nothing
 * internal (stack, SQL, file paths, driver messages) ever reaches a body.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, MESSAGES } from '../errors.js';
import { schemaErrorMessage, type SchemaError } from '../leads/messages.js';
import { failure } from './envelope.js';
import { RateLimitError } from './limits.js';

const STATUS: Record<ErrorCode, number> = {
  validation: 400,
  missing_key: 401,
  invalid_key: 401,
  invalid_signature: 401,
  insufficient_permissions: 403,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/** the HTTP status of a domain error code, for every surface (API envelope and dashboard pages) */
export const statusOf = (code: ErrorCode): number => STATUS[code];

/** driver errors that mean "the database is not there right now", not a bug */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'SQLITE_BUSY',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08006', // connection failures
  '57014', // statement timeout
]);

export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/.test(
    message,
  );
}

function toAppError(err: FastifyError, request: FastifyRequest, bodyLimit: number): AppError | null {
  if (err instanceof AppError) return err;
  if (err.validation) {
    const max = request.url.includes('/bulk-delete') ? 'Maximum 1000 leads per bulk delete request' : 'Maximum 1000 leads per bulk request';
    return new AppError('validation', schemaErrorMessage(err.validation as unknown as SchemaError[], err.validationContext ?? 'body', max));
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', `Request body is larger than ${bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('validation', 'Request body is empty; send a JSON object');
  }
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('validation', MESSAGES.invalidJson);
  }
  if (isUnavailable(err)) return new AppError('unavailable', MESSAGES.unavailable);
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Other client errors Fastify raised (bad URL, proto poisoning…): status kept, message generic.
    return new AppError(status === 404 ? 'not_found' : 'validation', status === 404 ? MESSAGES.notFound : 'Bad request');
  }
  return null;
}

export function errorHandler(bodyLimit: number) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const app = toAppError(err, request, bodyLimit);
    if (app === null || app.code === 'internal') {
      request.log.error({ err }, 'unexpected error');
      return reply.code(500).send(failure(MESSAGES.internal));
    }
    if (app.code === 'unavailable') request.log.warn({ err }, 'database unavailable');
    if (app instanceof RateLimitError) {
      const { verdict } = app;
      return reply.code(429).send(
        failure(app.message, {
          limit: verdict.limit,
          remaining: verdict.remaining,
          reset: new Date(Math.ceil(verdict.resetAt / 1000) * 1000).toISOString(),
        }),
      );
    }
    return reply.code(STATUS[app.code]).send(failure(app.message));
  };
}
