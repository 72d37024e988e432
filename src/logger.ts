import pino, { type Logger } from 'pino';

/** One pino logger per process. The key header is redacted wherever it might appear. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'request.headers["x-api-key"]', 'key', '*.key'],
      censor: '[redacted]',
    },
  });
}
