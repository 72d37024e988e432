/**
 * `leadline serve` starts again once with Node 20's young generation
 * (bin/young-generation.js) on a Node that can (process.execve, Node 22.15
 * and later: CI's Node 24 run), and leaves a size the operator chose alone.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServerProcess } from '../helpers/server-process.js';

const canRestart = typeof (process as { execve?: unknown }).execve === 'function' && process.platform !== 'win32';
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

describe.skipIf(process.platform !== 'linux')('the young generation of a long-running leadline', () => {
  const database = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'leadline-heap-')), 'l.db')}`;

  it(canRestart ? 'is sized by --max-semi-space-size=16, in the same process' : 'is left to this Node (no process.execve)', async () => {
    const server = await startServerProcess({ DATABASE_URL: database() });
    try {
      const args = cmdline(server.child.pid!);
      if (canRestart) expect(args.slice(1, 2)).toEqual(['--max-semi-space-size=16']);
      else expect(args.some((a) => a.includes('semi-space'))).toBe(false);
      expect(args.slice(-1)).toEqual(['serve']);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('keeps the size an operator chose in NODE_OPTIONS', async () => {
    const server = await startServerProcess({ DATABASE_URL: database(), NODE_OPTIONS: '--max-semi-space-size=32' });
    try {
      expect(cmdline(server.child.pid!).some((a) => a.includes('semi-space'))).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
