/** The metadata text the size check serialised is the one stored, and it leaves no trace on the object. */
import { describe, expect, it } from 'vitest';
import { jsonText, maxJsonBytesKeyword } from '../../src/leads/formats.js';

describe('maxJsonBytes and jsonText', () => {
  it('stores the text the size check serialised, and the object still serialises and lists as it came', () => {
    const metadata = { name: 'Ada', tags: ['a', 'b'], nested: { n: 1 } };
    expect(maxJsonBytesKeyword.validate(1000, metadata)).toBe(true);
    expect(jsonText(metadata)).toBe('{"name":"Ada","tags":["a","b"],"nested":{"n":1}}');
    expect(Object.keys(metadata)).toEqual(['name', 'tags', 'nested']);
    expect(JSON.stringify(metadata)).toBe(jsonText(metadata));
  });

  it('refuses metadata over the limit in bytes, not characters', () => {
    expect(maxJsonBytesKeyword.validate(12, { s: 'éé' })).toBe(true); // {"s":"éé"} is 12 bytes
    expect(maxJsonBytesKeyword.validate(11, { s: 'éé' })).toBe(false);
  });

  it('serialises an object the check never saw', () => {
    expect(jsonText({ a: 1 })).toBe('{"a":1}');
  });
});
