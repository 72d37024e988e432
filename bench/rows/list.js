/** Row 3: a list page of 8000 leads. Row 4: the last page against the first of a million-lead campaign. */
import { bulkBody } from '../lib/data.js';
import { capture, explain } from '../lib/explain.js';
import { expectStatus, interleaved, median, percentile, sequential } from '../lib/load.js';
import { startFloor } from '../lib/procs.js';
import { analyzeLeads } from '../lib/stores.js';
import { fmtMs, fmtRatio, latencyRow } from '../lib/stats.js';
import { check, fetchText } from './checks.js';

/** the list floor's two fastest forms per store (bench/floor/sqlite.js, postgres.js) */
const LIST_FLOORS = { sqlite: ['rowjson', 'db'], postgres: ['rowjson', 'arrays'] };
const LABELS = {
  rowjson: 'per-lead JSON by the database',
  db: 'page JSON by the database',
  arrays: 'rows as arrays + JS',
  rows: 'rows + JS',
};

/** `have`: leads the leadline campaign holds already */
export async function listRow(ctx, have) {
  const { S, H, leadline, floor, store, campaigns, base, rows, floors, log, servers } = ctx;
  log(`${ctx.kind}: 3 list ${S.list}`);
  for (; have < S.list; have += 1000) {
    await fetchText(`${leadline.url}/api/v1/leads/bulk`, {
      method: 'POST',
      headers: { ...H, 'content-type': 'application/json' },
      body: bulkBody(campaigns.leadline, 1000),
    });
  }
  await analyzeLeads(store);
  // The floor in its two fastest forms (bench/diag/floors.js measures them
  // all); the table shows the faster of the two in this run.
  const main = JSON.parse((await fetchText(`${floor.url}/health`)).text).forms.list;
  const other = LIST_FLOORS[ctx.kind].find((f) => f !== main);
  const floorOther = await startFloor(store.url, ctx.logFile('floor-list'), { FLOOR_LIST: other });
  servers.push(floorOther);
  const path = `/api/v1/leads?campaignId=${campaigns.leadline}&limit=${S.list}`;
  const bodies = await Promise.all([leadline, floor, floorOther].map((s) => fetchText(s.url + path, { headers: H })));
  const count = JSON.parse(bodies[0].text).data.count;
  check('list', count === S.list, `leadline returned ${count} leads`);
  check('list', bodies[1].text === bodies[0].text, `the floor (${LABELS[main]}) returns other bytes than leadline`);
  check('list', bodies[2].text === bodies[0].text, `the floor (${LABELS[other]}) returns other bytes than leadline`);
  const get = () => ({ path, headers: H });
  for (const s of [leadline, floor, floorOther]) await sequential(s.url, get, 5);
  const samples = new Map([
    [leadline, []],
    [floor, []],
    [floorOther, []],
  ]);
  for (let round = 0; round < S.rounds; round++) {
    const order = round % 2 ? [floorOther, floor, leadline] : [leadline, floor, floorOther];
    for (const s of order) samples.get(s).push(...(await sequential(s.url, get, S.perRound)).ms);
  }
  const [l, m, o] = [leadline, floor, floorOther].map((s) => samples.get(s));
  const mainFaster = median(m) <= median(o);
  floors.list = mainFaster ? m : o;
  const row = latencyRow(base(3, `list page of ${S.list}`), l, floors.list, 1.3);
  row.note =
    `floor: ${LABELS[mainFaster ? main : other]}, the faster of ${LABELS[main]} ${median(m).toFixed(1)} ms and ` +
    `${LABELS[other]} ${median(o).toFixed(1)} ms; same bytes as leadline`;
  rows.push(row);
  await floorOther.stop();
  servers.splice(servers.indexOf(floorOther), 1);
}

/** `lastCursor`: bench/lib/stores.js lastPageCursor's answer, the cursor and the position it holds */
export async function pagesRow(ctx, lastCursor) {
  const { S, H, leadline, floor, store, campaigns, base, rows, plans, log, kind } = ctx;
  log(`${kind}: 4 first vs last page of ${S.big.toLocaleString('en-US')}`);
  const first = `/api/v1/leads?campaignId=${campaigns.million}&limit=${S.page}`;
  const last = `${first}&cursor=${lastCursor.cursor}`;
  const lastBody = JSON.parse((await fetchText(leadline.url + last, { headers: H })).text).data;
  check('last page', lastBody.count === S.page && lastBody.hasMore === false, `got ${lastBody.count} leads, hasMore ${lastBody.hasMore}`);
  // first and last alternate request by request on one connection
  const alt = (i) => ({ path: i % 2 ? last : first, headers: H });
  const split = (runs) => ({
    first: runs.flatMap((s) => s.ms.filter((_, i) => i % 2 === 0)),
    last: runs.flatMap((s) => s.ms.filter((_, i) => i % 2 === 1)),
  });
  await sequential(leadline.url, alt, 10);
  await sequential(floor.url, alt, 10);
  const perRound = Math.max(2, Math.round(S.pageSamples / S.rounds) * 2);
  const [a, b] = await interleaved(
    S.rounds,
    () => sequential(leadline.url, alt, perRound),
    () => sequential(floor.url, alt, perRound),
  );
  a.concat(b).forEach((s) => {
    expectStatus('pages', s.statuses, 200);
  });
  const l = split(a);
  const f = split(b);
  const ratio = median(l.last) / median(l.first);
  rows.push({
    ...base(4, `last / first page (${S.page}) of ${S.big.toLocaleString('en-US')} leads`),
    leadline: `${fmtMs(median(l.last))} / ${fmtMs(median(l.first))}`,
    p99: `${fmtMs(percentile(l.last, 99))} / ${fmtMs(percentile(l.first, 99))}`,
    floor: `${fmtMs(median(f.last))} / ${fmtMs(median(f.first))}`,
    ratio: fmtRatio(ratio),
    target: '≤ 1.1 (last / first)',
    met: ratio <= 1.1,
    note: `floor last/first ${fmtRatio(median(f.last) / median(f.first))}; ${S.big / 10} later leads of another campaign follow the million`,
  });
  // the plan of leadline's own statement for the last page
  const { SqliteLeadStore } = await import('../../dist/store/sqlite/leads.js');
  const { PostgresLeadStore } = await import('../../dist/store/postgres/leads.js');
  const Leads = kind === 'postgres' ? PostgresLeadStore : SqliteLeadStore;
  // a lead store over the capturing Kysely (its database and its executor):
  // listPage runs on the executor alone
  const statements = await capture(store, (k) =>
    new Leads({ kysely: k }, k).listPage(campaigns.million, undefined, lastCursor.seq, S.page),
  );
  for (const st of statements) plans.push({ title: `${base(4).store}: the last page's statement`, plan: await explain(store, st) });
}
