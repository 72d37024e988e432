import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/dialer/batcher.js';

/** a Batcher whose writes are recorded, each answered after `hold` resolves */
function recording() {
  const batches: number[][] = [];
  let release: () => void = () => {};
  let hold = Promise.resolve();
  const batcher = new Batcher<number, string>(async (items) => {
    batches.push(items);
    await hold;
    return items.map((i) => `done ${i}`);
  });
  return {
    batcher,
    batches,
    holdWrites: () => {
      hold = new Promise((r) => (release = r));
    },
    releaseWrites: () => release(),
  };
}

describe('Batcher (the dialer group commit)', () => {
  it('writes the items added during one task in one batch, in order', async () => {
    const { batcher, batches } = recording();
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => batcher.add(i)));
    expect(results).toEqual(['done 1', 'done 2', 'done 3', 'done 4', 'done 5']);
    // the first item used to be written alone, the moment it was added
    expect(batches).toEqual([[1, 2, 3, 4, 5]]);
  });

  it('takes in items that reach it after a few awaits of the same task (a claim launching its calls)', async () => {
    const { batcher, batches } = recording();
    const call = async (i: number) => {
      await Promise.resolve();
      await Promise.resolve(i);
      return batcher.add(i);
    };
    await Promise.all([1, 2, 3].map(call));
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('sends what arrives during a write together in the next one', async () => {
    const r = recording();
    r.holdWrites();
    const first = r.batcher.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.batches).toEqual([[1]]);
    const later = [2, 3, 4].map((i) => r.batcher.add(i));
    r.releaseWrites();
    await Promise.all([first, ...later]);
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
  });

  it('keeps to the largest batch', async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      batches.push(items);
      return items;
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((i) => batcher.add(i)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('rejects every item of a failed batch, and goes on with the next', async () => {
    let fail = true;
    const batcher = new Batcher<number, number>(async (items) => {
      if (fail) {
        fail = false;
        throw new Error('database down');
      }
      return items;
    });
    const failed = [1, 2].map((i) => batcher.add(i));
    for (const p of failed) await expect(p).rejects.toThrow('database down');
    await expect(batcher.add(3)).resolves.toBe(3);
  });
});
