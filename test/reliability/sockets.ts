/** Raw TCP clients that misbehave on purpose: idle, dribbling, never finishing. */
import { readFileSync } from 'node:fs';
import net from 'node:net';

export interface RawClient {
  readonly socket: net.Socket;
  /** everything the server sent */
  received(): string;
  /** resolves with the ms from connect to close (by either side) */
  readonly closed: Promise<number>;
  /** writes `text` one character every `everyMs`, until done or closed */
  dribble(text: string, everyMs: number): void;
}

export function connect(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let data = '';
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('latin1');
    socket.on('data', (d) => (data += d));
    socket.on('error', () => {}); // a reset is one way of being closed
    const closed = new Promise<number>((done) =>
      socket.once('close', () => {
        clearInterval(timer);
        done(Date.now() - started);
      }),
    );
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => data,
        closed,
        dribble(text, everyMs) {
          let i = 0;
          timer = setInterval(() => {
            if (i >= text.length || socket.destroyed) return clearInterval(timer);
            socket.write(text[i++]!);
          }, everyMs);
        },
      }),
    );
    socket.once('error', reject);
  });
}

/** the body of a raw HTTP answer, parsed as JSON */
export function bodyOf(answer: string): unknown {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
}

/** the fd limit this process may open, from /proc where there is one */
export function fdLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) ? soft : 1024;
  } catch {
    return 1024;
  }
}
