/** Asset files with a content hash in their name, so browsers may cache them forever. */
import { createHash } from 'node:crypto';
import { SCRIPT } from './script.js';
import { STYLE } from './style.js';

interface Asset {
  readonly name: string;
  readonly type: string;
  readonly body: string;
}

function asset(base: string, ext: string, type: string, body: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return { name: `${base}.${hash}.${ext}`, type, body };
}

export const CSS = asset('app', 'css', 'text/css; charset=utf-8', STYLE);
export const JS = asset('app', 'js', 'text/javascript; charset=utf-8', SCRIPT);
export const ASSETS: ReadonlyMap<string, Asset> = new Map([CSS, JS].map((a) => [a.name, a]));
