/**
 * Statements compiled by Kysely once instead of on every call.
 *
 * Building a query (the operation-node tree) and compiling it to SQL text cost
 * more than SQLite takes to run leadline's small statements: for small calls
 * (list limit=1, single create at 50 connections, SQLite) Kysely's
 * builders and compiler were ~10% of the server's CPU. A precompiled statement
 * is built once per executor with a placeholder in place of each argument; the
 * text is kept, and each call only binds its arguments in the places the
 * placeholders took. The statement is still written with Kysely, and it runs
 * through the same executor (so SQLite's single connection stays serialised
 * with the write transactions, exactly as before).
 *
 * `build` returns the compiled query (`.compile()`, or `.compile(ex)` for
 * `sql` templates); it must pass every argument through as a bound value, unchanged: no
 * arithmetic, no branching on it, no use inside `sql.lit`/`sql.raw`. A variant
 * that changes the text (an optional filter) is a separate precompiled
 * statement. Arguments the text uses in a way other than as a whole bound
 * value are refused when the statement is first compiled.
 */
import { CompiledQuery, type QueryResult } from 'kysely';
import type { Executor } from './index.js';

const MARK = '\u0000leadline-arg:';

interface Compiled {
  readonly sql: string;
  /** for each bound parameter: the argument's name, or a constant the text bound itself */
  readonly slots: readonly ({ arg: string } | { value: unknown })[];
}

export function precompiled<A extends Record<string, unknown>, R>(
  build: (args: A, ex: Executor) => CompiledQuery<R>,
): (ex: Executor, args: A) => Promise<QueryResult<R>> {
  // Per executor, not per dialect: an executor with plugins may compile other text.
  // The long-lived Kysely instance compiles once; a transaction's executor, once per transaction.
  const byExecutor = new WeakMap<Executor, Compiled>();
  const compile = (ex: Executor, names: readonly string[]): Compiled => {
    const placeholders = Object.fromEntries(names.map((name) => [name, MARK + name])) as unknown as A;
    // compiled by the executor that runs it (`.compile()` / `.compile(ex)` in build)
    const query = build(placeholders, ex);
    const slots = query.parameters.map((value) => {
      if (typeof value === 'string' && value.includes(MARK)) {
        const arg = value.slice(MARK.length);
        if (!value.startsWith(MARK) || !names.includes(arg))
          throw new Error(`precompiled: an argument is not bound as a whole value (${JSON.stringify(value)})`);
        return { arg };
      }
      return { value };
    });
    if (query.sql.includes(MARK)) throw new Error('precompiled: an argument ended up in the SQL text');
    const compiled = { sql: query.sql, slots };
    byExecutor.set(ex, compiled);
    return compiled;
  };
  return (ex, args) => {
    const compiled = byExecutor.get(ex) ?? compile(ex, Object.keys(args));
    const { slots } = compiled;
    const parameters = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      parameters[i] = 'arg' in slot ? args[slot.arg] : slot.value;
    }
    return ex.executeQuery(CompiledQuery.raw(compiled.sql, parameters) as CompiledQuery<R>);
  };
}
