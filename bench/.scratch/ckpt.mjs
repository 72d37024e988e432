import SQLite from 'better-sqlite3';
import { rmSync } from 'node:fs';
rmSync('/tmp/prof/ck.db', { force: true }); rmSync('/tmp/prof/ck.db-wal', { force: true });
const d = new SQLite('/tmp/prof/ck.db');
d.pragma('journal_mode = WAL'); d.pragma('synchronous = NORMAL');
d.exec('create table t (id integer primary key, a text unique, b text unique, c text, m text)');
const ins = d.prepare('insert into t (a, b, c, m) values (?, ?, ?, ?)');
const times = [];
for (let i = 0; i < 3000; i++) { const t = process.hrtime.bigint(); ins.run('a' + Math.random(), 'b' + Math.random(), 'c', '{"x":1}'); times.push(Number(process.hrtime.bigint() - t) / 1e6); }
times.sort((a, b) => a - b);
console.log('median', times[1500].toFixed(3), 'p99', times[2970].toFixed(2), 'max', times[2999].toFixed(1), 'sum top 1%', times.slice(2970).reduce((a, b) => a + b, 0).toFixed(0), 'total', times.reduce((a, b) => a + b, 0).toFixed(0));
