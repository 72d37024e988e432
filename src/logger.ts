import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * One pino logger per process. The key header is redacted wherever it might
 * appear. `destination` (stdout by default) lets a test read what would be logged.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'request.headers["x-api-key"]', 'key', '*.key'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
