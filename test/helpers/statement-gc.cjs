/**
 * Prepares and drops many statements while the heap grows, so that V8 starts
 * an incremental collection and finishes it from a task of its own, outside
 * any JavaScript: where better-sqlite3 12 on Node 24 aborts the process as a
 * statement is freed (`Assertion failed: (env) != nullptr` in
 * node::RemoveEnvironmentCleanupHook, from Statement::~Statement).
 * Usage: node statement-gc.cjs <better-sqlite3 package directory> [rounds]
 * Prints "survived" and exits 0 when no collection aborted it.
 */
const Database = require(process.argv[2]);
const rounds = Number(process.argv[3] ?? 30);
const db = new Database(':memory:');
db.exec('create table t (id integer primary key, v text)');
const garbage = [];
let round = 0;
(function next() {
  for (let i = 0; i < 2000; i++) db.prepare(`select v from t where id = ${i}`).all();
  for (let i = 0; i < 20000; i++) garbage.push({ i, s: 'x'.repeat(20) + i });
  if (garbage.length > 400000) garbage.length = 0;
  // setImmediate: back to the event loop between rounds, where V8's tasks run
  if (++round < rounds) setImmediate(next);
  else console.log(`survived ${rounds} rounds, Node ${process.version}`);
})();
