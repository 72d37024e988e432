/**
 * The one log line each request gets, written as pino would write it.
 *
 * `request.log.info({ method, url, status, ms }, 'request')` runs pino's whole
 * path for a line whose shape never changes: the level's method, the object's
 * keys walked one by one, each value typed and quoted, the redaction pass.
 * Written here, a list limit=1 on SQLite (bench row 5) costs about 3% less:
 * 367-371 → 356-357 thousand instructions a request without V8's compiler
 * (bench/diag/instructions.js, two starts each), 172 → 166 µs of server CPU
 * with both builds under the same load (bench/diag/side-by-side.js, six rounds).
 * The line is the same, byte for byte (test/api/request-log.test.ts
 * compares them): the logger's own bindings (pid, hostname, the request's
 * reqId, as pino escaped them when Fastify made the request's child logger),
 * then the four fields, none of which a redaction path names.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export interface RequestLine {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly ms: number;
}

const INFO = 30;
const { chindingsSym, streamSym } = pino.symbols;

/** pino's own fields, as src/logger.ts reaches its stream */
const internals = (log: Logger) => log as unknown as Record<symbol, unknown>;

/** the logger's bindings as pino wrote them: `,"pid":1,"hostname":"h","reqId":"…"` */
const bindings = (log: Logger) => internals(log)[chindingsSym] as string;

/** the line pino's `log.info(line, 'request')` would write, newline included */
export function requestLineText(log: Logger, line: RequestLine, now: number): string {
  return (
    `{"level":${INFO},"time":${now}${bindings(log)},"method":${JSON.stringify(line.method)},` +
    `"url":${JSON.stringify(line.url)},"status":${line.status},"ms":${line.ms},"msg":"request"}\n`
  );
}

/** writes the request's line, if the logger's level lets info lines through */
export function logRequest(log: Logger, line: RequestLine): void {
  if (log.levelVal > INFO) return;
  (internals(log)[streamSym] as DestinationStream).write(requestLineText(log, line, Date.now()));
}
