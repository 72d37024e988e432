/**
 * A request whose body is declared but never finished, over a real socket:
 * if the server answers it, the server answered without reading the body.
 */
import { connect } from 'node:net';

export interface Head {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** sends the head and `sent` (less than `declared` bytes), then waits for the server's answer */
export function partialPost(port: number, path: string, headers: Record<string, string>, declared: number, sent: string): Promise<Head> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    const lines = Object.entries({ host: '127.0.0.1', ...headers, 'content-length': String(declared) }).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.on('error', reject);
    socket.on('data', (d) => {
      got += d.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...rest] = got.slice(0, end).split('\r\n');
      const head: Record<string, string> = {};
      for (const line of rest) head[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      const length = Number(head['content-length'] ?? 0);
      if (got.length - end - 4 < length) return;
      socket.destroy();
      resolve({ status: Number(statusLine!.split(' ')[1]), headers: head, body: got.slice(end + 4, end + 4 + length) });
    });
    socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
    socket.write(sent);
  });
}
