/**
 * Progress of a long import on stderr: a live bar with rows per second and an
 * ETA on a terminal, plain lines every few seconds when piped or logged (a
 * bar's carriage returns make a log unreadable). The file's size is the only
 * total known before the end, so ETA follows bytes, not rows.
 */
import cliProgress from 'cli-progress';
import { formatDuration } from '../scheduling/duration.js';

interface ProgressState {
  readonly bytes: number;
  readonly rows: number;
  readonly created: number;
  readonly skipped: number;
  readonly rejected: number;
}

export interface Progress {
  /** the clock starts here: after the rows a resumed import skips */
  begin(bytes: number, rows: number): void;
  update(state: ProgressState): void;
  /** a passing event: a rate-limit wait, a retry */
  note(message: string): void;
  stop(): void;
}

export interface ProgressOptions {
  readonly totalBytes: number;
  readonly stream?: NodeJS.WriteStream;
  /** default: whether the stream is a terminal */
  readonly tty?: boolean;
  /** plain mode: at most one line per interval */
  readonly intervalMs?: number;
  readonly now?: () => number;
}

/** an ETA in the spelling durations have everywhere else (scheduling/duration.ts), to the second */
const eta = (seconds: number): string => (Number.isFinite(seconds) ? formatDuration(Math.max(0, Math.round(seconds)) * 1000) : '?');

export function createProgress(opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr;
  const now = opts.now ?? Date.now;
  const total = Math.max(1, opts.totalBytes);
  let start = { at: now(), bytes: 0, rows: 0 };
  const rates = (s: ProgressState) => {
    const seconds = Math.max(0.001, (now() - start.at) / 1000);
    const bytesPerSecond = (s.bytes - start.bytes) / seconds;
    return {
      rate: Math.round((s.rows - start.rows) / seconds),
      eta: bytesPerSecond > 0 ? eta((total - s.bytes) / bytesPerSecond) : '?',
      percentage: Math.min(100, Math.floor((s.bytes / total) * 100)),
    };
  };
  const counts = (s: ProgressState) => `created ${s.created}, skipped ${s.skipped}, rejected ${s.rejected}`;

  if (opts.tty ?? stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: ' {bar} {percentage}% | {rows} rows | {rate} rows/s | ETA {etaText} | {counts} {note}',
        barsize: 24,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { rows: 0, rate: 0, etaText: '?', counts: '', note: '' });
    return {
      begin: (bytes, rows) => void (start = { at: now(), bytes, rows }),
      update: (s) => {
        const r = rates(s);
        bar.update(Math.min(total, s.bytes), { rows: s.rows, rate: r.rate, etaText: r.eta, counts: counts(s), note: '' });
      },
      note: (message) => bar.update({ note: `| ${message}` }),
      stop: () => bar.stop(),
    };
  }

  const interval = opts.intervalMs ?? 5000;
  let lastLine = -Infinity;
  let unprinted: ProgressState | undefined;
  const line = (s: ProgressState) => {
    const r = rates(s);
    stream.write(`${s.rows} rows (${r.percentage}%), ${r.rate} rows/s, ETA ${r.eta}; ${counts(s)}\n`);
    lastLine = now();
    unprinted = undefined;
  };
  return {
    begin: (bytes, rows) => void (start = { at: now(), bytes, rows }),
    update: (s) => {
      unprinted = s;
      if (now() - lastLine >= interval) line(s);
    },
    note: (message) => void stream.write(`${message}\n`),
    stop: () => {
      if (unprinted) line(unprinted);
    },
  };
}
