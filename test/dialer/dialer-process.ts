/** Real `leadline` processes (the compiled CLI in dist/, built by `npm test`). */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { BIN } from '../helpers/server-process.js';

export function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

export interface DialerProcess {
  readonly child: ChildProcess;
  /** stdout and stderr so far (pino JSON lines) */
  output(): string;
  /** parsed log lines so far */
  logs(): any[];
  readonly exited: Promise<number | string>;
  /** resolves once a log line matches */
  waitFor(test: (line: any) => boolean, timeoutMs?: number): Promise<any>;
}

export function startDialer(args: string[], env: Record<string, string>): DialerProcess {
  const child = spawn(process.execPath, [BIN, 'dialer', ...args], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const logs = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  return {
    child,
    output: () => out,
    logs,
    exited,
    async waitFor(test, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = logs().find(test);
        if (hit) return hit;
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`dialer exited before the expected log line:\n${out}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for a log line:\n${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}
