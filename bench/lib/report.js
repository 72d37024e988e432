/**
 * The table, on the terminal and in BENCHMARKS.md. The harness rewrites only
 * the part between the two markers; the prose around them is written by hand.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { sqliteDriver } from '../../dist/db/sqlite-driver.js';

const BEGIN = '<!-- bench:results:begin (written by npm run bench) -->';
const END = '<!-- bench:results:end -->';

const HEAD = ['#', 'figure', 'store', 'leadline', 'p99', 'floor', 'floor p99', 'ratio', 'target', 'met'];
const met = (m) => (m === true ? 'yes' : m === false ? '**no**' : '–');
const cells = (r) => [
  String(r.n),
  r.name,
  r.store ?? '',
  r.leadline ?? '',
  r.p99 ?? '',
  r.floor ?? '',
  r.floorP99 ?? '',
  r.ratio ?? '',
  r.target ?? '',
  met(r.met),
];

function markdown(rows) {
  const lines = [`| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${cells(r).join(' | ')} |`);
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.n} (${r.store}): ${r.note}`);
  return [...lines, '', ...notes].join('\n');
}

function git(args) {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** the SQLite driver leadline loads on this Node (src/db/sqlite-driver.ts), with the version installed */
function sqliteDriverVersion() {
  const pkg = sqliteDriver === 'better-sqlite3@13' ? 'better-sqlite3-13' : 'better-sqlite3';
  try {
    return `better-sqlite3 ${createRequire(import.meta.url)(`${pkg}/package.json`).version}`;
  } catch {
    return sqliteDriver;
  }
}

function machine() {
  const cpus = os.cpus();
  const commit = git(['rev-parse', '--short', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) ? ' + uncommitted changes' : '';
  return {
    cpu: `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    sqlite: sqliteDriverVersion(),
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: commit ? commit + dirty : 'unknown',
    load: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

export function printTable(rows, { quick, seconds, notes, plans = [] }) {
  const table = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
  const out = [line(HEAD), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => line(cells(r)))];
  for (const r of rows) if (r.note) out.push(`  ${r.n} ${r.store ?? ''}: ${r.note}`);
  for (const n of notes) out.push(`  note: ${n}`);
  for (const p of plans) out.push('', `plan, ${p.title}`, ...p.plan.split('\n').map((l) => `  ${l}`));
  out.push(`${quick ? 'quick smoke run (sizes are tiny; nothing is asserted)' : 'full run'}, ${seconds.toFixed(0)} s`);
  process.stdout.write(`\n${out.join('\n')}\n`);
}

/** `--scale`: its own table, between its own markers ("How cost grows") */
export function writeScaleReport(path, table, seconds) {
  const m = machine();
  const begin = '<!-- bench:scale:begin (written by npm run bench -- --scale=10m) -->';
  const end = '<!-- bench:scale:end -->';
  const block = [
    begin,
    `Run of ${m.date} — ${m.cpu}, Node ${m.node}, commit ${m.commit}; load average at the end ${m.load}; ${seconds.toFixed(0)} s.`,
    '',
    table,
    end,
  ].join('\n');
  let text = readFileSync(path, 'utf8');
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  text = i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(path, text);
  process.stderr.write(`wrote ${path}\n`);
}

/**
 * Each full run also keeps its rows as bench/results/node<major>.json, so that
 * a run on another Node (see "Node versions side by side" in BENCHMARKS.md) can be set
 * beside the last one on this Node without running both in one process.
 */
function sideBySide(dir, rows, m) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `node${process.versions.node.split('.')[0]}.json`), `${JSON.stringify({ machine: m, rows }, null, 1)}\n`);
  const runs = readdirSync(dir)
    .filter((f) => /^node\d+\.json$/.test(f))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
    .sort((a, b) => Number(a.machine.node.slice(1).split('.')[0]) - Number(b.machine.node.slice(1).split('.')[0]));
  const key = (r) => `${r.n}|${r.name}|${r.store}`;
  const keys = [...new Map(runs.flatMap((run) => run.rows.map((r) => [key(r), r]))).values()];
  const head = ['#', 'figure', 'store', ...runs.flatMap((run) => [`Node ${run.machine.node.slice(1)}`, 'ratio'])];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const k of keys) {
    const cellsOf = runs.flatMap((run) => {
      const r = run.rows.find((x) => key(x) === key(k));
      return [r?.leadline ?? '–', r?.ratio || '–'];
    });
    lines.push(`| ${k.n} | ${k.name} | ${k.store ?? ''} | ${cellsOf.join(' | ')} |`);
  }
  const runsLine = runs.map(
    (run) =>
      `Node ${run.machine.node.slice(1)} (SQLite driver: ${run.machine.sqlite ?? 'not recorded'}): ${run.machine.date}, commit ${run.machine.commit}, load at the end ${run.machine.load}`,
  );
  return ['', '### Node versions side by side', '', ...runsLine.map((l) => `- ${l}`), '', ...lines];
}

export function writeReport(path, rows, { seconds, notes, sizes, plans = [] }) {
  const m = machine();
  const runtimes = sideBySide(join(path, '..', 'bench', 'results'), rows, m);
  const block = [
    BEGIN,
    `Run of ${m.date} — ${m.cpu}, ${m.memory}, ${m.os}, Node ${m.node} (SQLite driver: ${m.sqlite}), commit ${m.commit};`,
    `load average at the end ${m.load}; the whole run took ${seconds.toFixed(0)} s.`,
    `Sizes: bulk ${sizes.bulk} leads, ${sizes.rounds * sizes.perRound} timed requests per side per latency row,`,
    `list page ${sizes.list}, big campaign ${sizes.big.toLocaleString('en-US')} leads, throughput ${sizes.tpRounds} × ${sizes.seconds} s per side at 50 connections.`,
    '',
    markdown(rows),
    ...notes.map((n) => `- note: ${n}`),
    ...plans.flatMap((p) => ['', `Plan, ${p.title}`, '', '```', p.plan, '```']),
    ...runtimes,
    END,
  ].join('\n');
  let text = existsSync(path) ? readFileSync(path, 'utf8') : `# Benchmarks\n\n${BEGIN}\n${END}\n`;
  const i = text.indexOf(BEGIN);
  const j = text.indexOf(END);
  text = i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + END.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(path, text);
  process.stderr.write(`wrote ${path}\n`);
}
