/**
 * Child processes of a run: `leadline serve` started as users start it (the
 * compiled CLI from dist/), and the floor server. Each listens on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { YOUNG_GENERATION_ARGS } from '../../bin/young-generation.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const LEADLINE_BIN = join(ROOT, 'bin', 'leadline.js');
const FLOOR = join(ROOT, 'bench', 'floor', 'server.js');

/** Limits high enough that no row but the limiter row is shaped by them (the
 * memory limiter holds one 8-byte slot per admitted hit, so not unbounded). */
const GENEROUS_LIMITS = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_PER_HOUR: '1000000',
  RATE_LIMIT_BULK_PER_MINUTE: '100000',
  RATE_LIMIT_IP_PER_MINUTE: '100000',
};

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const live = new Set();

/** kills every child still running (used on errors and Ctrl-C) */
export function killAll() {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** `exec`: the program to run in place of this Node (bench/diag/instructions.js runs valgrind) */
export async function start(name, args, env, healthPath, logFile, nodeArgs = [], { exec = process.execPath, timeoutMs = 30_000 } = {}) {
  const port = await freePort();
  const out = openSync(logFile, 'a');
  const child = spawn(exec, [...nodeArgs, ...args], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', out, out],
  });
  live.add(child);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  exited.then(() => live.delete(child));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited early; see ${logFile}`);
    try {
      if ((await fetch(url + healthPath)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not become healthy; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    url,
    port,
    pid: child.pid,
    /** peak resident set size so far, MB (the kernel's high-water mark) */
    peakRssMb: () => peakRssMb(child.pid),
    /** CPU time used so far (user + system), ms */
    cpuMs: () => cpuMs(child.pid),
    async stop() {
      const peak = peakRssMb(child.pid);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      return peak;
    },
  };
}

/** user + system CPU of a process, ms (/proc/PID/stat fields 14 and 15, in 10 ms clock ticks) */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

export function peakRssMb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** `leadline serve` with the given DATABASE_URL / REDIS_URL; logs at info, as shipped, to a file */
export function startLeadline(env, logFile, { nodeArgs = [] } = {}) {
  return start('leadline', [LEADLINE_BIN, 'serve'], leadlineEnv(env), '/api/health', logFile, nodeArgs);
}

/** the environment every bench server of leadline runs with, `env` on top */
export function leadlineEnv(env) {
  return { ...GENEROUS_LIMITS, LOG_LEVEL: 'info', REDIS_URL: '', ...env };
}

/** @param {Record<string,string>} [env] FLOOR_BULK, FLOOR_LIST, FLOOR_PG_POOL, FLOOR_SMALL (see bench/floor/server.js) */
export function startFloor(dbUrl, logFile, env = {}, nodeArgs = []) {
  // the young generation leadline's serve and dialer run with (bin/young-generation.js), so that
  // both sides of a ratio have the same heap on every Node
  return start('floor', [FLOOR], { FLOOR_DB: dbUrl, ...env }, '/health', logFile, [...YOUNG_GENERATION_ARGS, ...nodeArgs]);
}
