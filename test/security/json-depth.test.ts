/**
 * The depth scan that runs before JSON.parse of every API body: exact on any
 * JSON value, blind to brackets inside strings (escapes included), and in
 * front of the parser it changes nothing for bodies within the limit.
 */
import fc from 'fast-check';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parseJsonBodies } from '../../src/http/json-body.js';
import { nestedDeeperThan as deeperInBytes } from '../../src/http/json-depth.js';

/** the scan reads a body's UTF-8 bytes, as the server receives them */
const nestedDeeperThan = (text: string, max: number) => deeperInBytes(Buffer.from(text), max);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function depthOf(v: Json): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (v !== null && typeof v === 'object') return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

/** strings made of what could fool a scan: brackets, quotes, backslashes, and a few others */
const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"', 'a', ' ', ':', ',', '\u2028', '😀', '\u0000') });
const leaf = fc.jsonValue({ maxDepth: 3, stringUnit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', 'é') });

/** a JSON value of depth 0..max: a small random value wrapped in random layers of arrays and objects */
function valueUpTo(max: number): fc.Arbitrary<Json> {
  // fc.array alone rarely goes past 20 elements; draw the count first, often the maximum
  const layer = fc.tuple(fc.boolean(), tricky, fc.array(leaf, { maxLength: 2 }));
  const count = fc.oneof(fc.integer({ min: 0, max }), fc.constant(max));
  const layers = count.chain((n) => fc.array(layer, { minLength: n, maxLength: n }));
  return fc.tuple(leaf as fc.Arbitrary<Json>, layers).map(([inner, wrap]) => {
    let v = inner;
    // keep within max: the leaf itself may be up to 3 deep
    for (const [asArray, key, siblings] of wrap) {
      const next: Json = asArray ? [...(siblings as Json[]), v] : { ...(siblings.length ? { sibling: siblings as Json[] } : {}), [key]: v };
      if (depthOf(next) > max) break;
      v = next;
    }
    return v;
  });
}

/** arrays nested exactly `depth` deep around a number */
function deepest(depth: number): Json {
  let v: Json = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

const spacing = fc.constantFrom<(v: Json) => string>(
  (v) => JSON.stringify(v),
  (v) => JSON.stringify(v, null, 2),
  (v) => ` \n\t${JSON.stringify(v, null, '\t')}\r\n `,
);

describe('nestedDeeperThan', () => {
  it('finds the exact depth of any JSON value, whatever its strings and spacing hold', () => {
    const depths = new Set<number>();
    fc.assert(
      fc.property(valueUpTo(80), spacing, (v, show) => {
        const text = show(v);
        const d = depthOf(v);
        depths.add(d);
        expect(nestedDeeperThan(text, d)).toBe(false);
        if (d > 0) expect(nestedDeeperThan(text, d - 1)).toBe(true);
      }),
      // Both ends are always tried, besides the random draw: the draw alone once missed depth 80 (CI).
      {
        numRuns: 500,
        examples: [
          [deepest(80), (v: Json) => JSON.stringify(v)],
          [7, (v: Json) => JSON.stringify(v)],
        ],
      },
    );
    // the draw reached shallow values, the full depth and much in between
    expect(depths.has(80) && depths.has(0) && depths.size).toBeGreaterThan(40);
  });

  it('64 deep passes, 65 deep fails, arrays and objects alike', () => {
    const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    const mixed = (n: number) =>
      Array.from({ length: n }, (_, i) => (i % 2 ? '{"k":' : '[')).join('') +
      'null' +
      Array.from({ length: n }, (_, i) => ((n - 1 - i) % 2 ? '}' : ']')).join('');
    for (const make of [arrays, objects, mixed]) {
      expect(JSON.parse(make(65))).toBeDefined(); // well-formed
      expect(nestedDeeperThan(make(64), 64)).toBe(false);
      expect(nestedDeeperThan(make(65), 64)).toBe(true);
    }
    expect(nestedDeeperThan('[[],[],[[]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[],[],[[]]]', 2)).toBe(true);
    expect(nestedDeeperThan('1', 0)).toBe(false);
    expect(nestedDeeperThan('[]', 0)).toBe(true);
  });

  it('brackets inside strings do not count, with escaped quotes and backslashes before the closing quote', () => {
    const cases: [string, number][] = [
      ['["[[[[[[[["]', 1],
      [String.raw`["\"[[[[[[[["]`, 1],
      [String.raw`["\\", [[["x"]]]]`, 4],
      [String.raw`["\\\"[[[", "]]]\\"]`, 1],
      [String.raw`{"{{{{": "}}}}", "\\\\": [{"\"": "[\"["}]}`, 3],
      [String.raw`["\u005b\u005b", "\\u005b"]`, 1],
    ];
    for (const [text, depth] of cases) {
      expect(JSON.parse(text)).toBeDefined();
      expect(nestedDeeperThan(text, depth), text).toBe(false);
      expect(nestedDeeperThan(text, depth - 1), text).toBe(true);
    }
    // a string full of brackets beside a shallow value is never "too deep"
    const wide = JSON.stringify({ note: '['.repeat(10_000) + '\\"' + '{'.repeat(10_000) });
    expect(nestedDeeperThan(wide, 1)).toBe(false);
  });

  it('a 4,000,000-character deep body is refused at the 65th bracket', () => {
    const text = '['.repeat(2_000_000) + ']'.repeat(2_000_000);
    expect(nestedDeeperThan(text, MAX_JSON_DEPTH)).toBe(true);
  });

  it('in front of the parser: within the limit the body is exactly what JSON.parse gives; past it, a 400 naming the limit', async () => {
    let deepest = 0;
    const app = Fastify({ bodyLimit: 8 * 1024 * 1024 });
    parseJsonBodies(app);
    let got: unknown;
    app.post('/', async (request) => {
      got = request.body;
      return { ok: true };
    });
    // the app's real handler maps AppError('validation') to 400; this one just shows the message
    app.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, _request, reply) =>
      reply.code(err.statusCode ?? (err.code === 'validation' ? 400 : 500)).send({ message: err.message }),
    );
    try {
      await fc.assert(
        fc.asyncProperty(valueUpTo(MAX_JSON_DEPTH), spacing, async (v, show) => {
          const text = show(v);
          got = undefined;
          deepest = Math.max(deepest, depthOf(v));
          const res = await app.inject({ method: 'POST', url: '/', headers: { 'content-type': 'application/json' }, payload: text });
          expect(res.statusCode, res.body).toBe(200);
          expect(got).toEqual(JSON.parse(text));
        }),
        { numRuns: 200 },
      );
      expect(deepest).toBe(MAX_JSON_DEPTH);
      for (const depth of [65, 1000, 2_000_000]) {
        const res = await app.inject({
          method: 'POST',
          url: '/',
          headers: { 'content-type': 'application/json' },
          payload: '['.repeat(depth) + ']'.repeat(depth),
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toBe('Request body is nested deeper than 64 levels of arrays and objects');
      }
    } finally {
      await app.close();
    }
  });
});
