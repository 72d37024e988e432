/**
 * Real `leadline serve` processes (the compiled CLI in dist/, built by
 * `npm test`), for tests that need separate processes: several instances,
 * signals, crashes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/leadline.js', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  /** resolves once the output matches (what serve prints just after it starts listening) */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** resolves with the exit code (or signal name) */
  readonly exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export async function startServerProcess(env: Record<string, string>, timeoutMs = 40_000): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become healthy:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => out,
    async waitForOutput(pattern, waitMs = 10_000) {
      const until = Date.now() + waitMs;
      while (!pattern.test(out)) {
        if (Date.now() > until) throw new Error(`no output matching ${pattern}:\n${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return out;
    },
    exited,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
