/**
 * V8's young generation, sized as Node 20 sizes it, for the long-running
 * commands. Node 22 and later size it from the machine's memory: on the
 * 2-core, 24 GiB bench machine Node 24 chose 64 MiB semi-spaces (a 192 MiB
 * young generation) where Node 20 chose 16. A server then peaked at 329 MB
 * against 232 MB with 16 (bench row 8, Node 24; Node 20: 182 MB), for no
 * gain in speed (nodejs/node#62723 reports the same after an upgrade).
 *
 * The size can only be set when the process starts, so `serve` and `dialer`
 * start again once, in place (process.execve: the same pid, stdio and
 * environment), with the flag. Where process.execve is missing (Node before
 * 22.15, Windows) nothing happens; Node 20 sizes it so already. An operator who
 * chose a size (a node flag, or NODE_OPTIONS) keeps it. One-shot commands are
 * left alone: a second start would cost more than they run.
 */
export const YOUNG_GENERATION_ARGS = ['--max-semi-space-size=16'];

const LONG_RUNNING = new Set(['serve', 'dialer']);

export function sizeYoungGeneration() {
  if (typeof process.execve !== 'function' || !LONG_RUNNING.has(process.argv[2])) return;
  if ([...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('semi-space-size'))) return;
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...YOUNG_GENERATION_ARGS, ...process.execArgv, ...process.argv.slice(1)],
      process.env,
    );
  } catch {
    // could not start again (a platform without execve): run as started
  }
}
