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

/**
 * Text for stdout, after the lines the logger has queued: pino writes
 * asynchronously, so process.stdout.write would overtake them (the first
 * start's demo would come before the line saying where the server listens).
 */
export function printAfterLogs(logger: Logger, text: string): void {
  (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]!.write(text);
}

/**
 * A request URL as it may be logged: no phone numbers. The value of every
 * query parameter named phoneNumber, and any value that looks like one (a
 * "+", "%2B" or space and 6 or more digits, or a run of 10 or more digits),
 * becomes [redacted]; the path and the other parameters stay readable.
 */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || !mayHoldNumber(url, q)) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const phoneLike = /^(\+|%2B|%20| )?[0-9]{6,}$/i.test(value) || /[0-9]{10,}/.test(value);
      return /^phone/i.test(decodeName(name)) || phoneLike ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

/**
 * Whether the query may need redacting at all: a name that reads "phone…" is
 * there as such unless percent-encoded, and a phone-like value has 6 digits in
 * a row. Most request URLs (a campaign's page: ?campaignId=…&limit=…) have
 * neither, and are logged without being split and rebuilt: that took a few
 * microseconds of every small request (bench row 5).
 */
function mayHoldNumber(url: string, q: number): boolean {
  return url.includes('%', q) || /phone|[0-9]{6}/i.test(url.slice(q));
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
