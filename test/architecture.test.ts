/**
 * The shape the code keeps (README, "Project layout"): SQL and the choice of
 * database live in src/db and src/store only; released migrations import no
 * domain code; files stay small enough to read in one sitting.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url).pathname;
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
const sources = files(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));
const outsideStores = sources.filter((f) => !f.path.startsWith('db/') && !f.path.startsWith('store/'));

describe('the architecture', () => {
  it('finds the sources', () => {
    expect(sources.length).toBeGreaterThan(50);
    expect(outsideStores.length).toBeGreaterThan(30);
  });

  it('keeps SQL and the choice of database in src/db and src/store', () => {
    const offenders = outsideStores.filter((f) => /\bdialect\b|from 'kysely'|\.kysely\b|\bsql`/.test(f.text)).map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it('keeps migrations frozen: they import nothing but kysely and the database types', () => {
    const migrations = sources.filter((f) => f.path.startsWith('db/migrations/'));
    expect(migrations.length).toBeGreaterThan(5);
    for (const m of migrations) {
      const imports = [...m.text.matchAll(/from '([^']+)'/g)].map((x) => x[1]);
      expect(
        imports.every((i) => i === 'kysely' || i === '../index.js'),
        `${m.path} imports ${imports.join(', ')}`,
      ).toBe(true);
    }
  });

  it('keeps files under 300 lines, unless their header says why', () => {
    const long = sources.filter(
      (f) => f.text.split('\n').length > 300 && !/^\/\*\*[\s\S]*?(longer than 300 lines because|auto-generated)/.test(f.text),
    );
    expect(long.map((f) => f.path)).toEqual([]);
  });
});
