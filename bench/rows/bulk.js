/** Rows 1 and 2: a bulk create of 1000 new leads, then the same requests again (every lead a duplicate). */
import { bulkBody } from '../lib/data.js';
import { expectStatus, interleaved, sequential } from '../lib/load.js';
import { latencyRow } from '../lib/stats.js';
import { check, fetchText } from './checks.js';

const PATH = '/api/v1/leads/bulk';
/** the floor's bulk forms (bench/floor/sqlite.js, postgres.js), as the notes name them */
const FORMS = {
  'values-grouplookup': 'multi-row VALUES',
  'values-lookup': 'multi-row VALUES',
  'json-lookup': 'one JSON parameter',
};

export async function bulkRows(ctx) {
  const { S, H, leadline, floor, campaigns, base, rows, floors, log, wants } = ctx;
  // every body sent, per server, so that row 2 can send them again
  const sent = new Map([
    [leadline, []],
    [floor, []],
  ]);
  const fresh = (srv, campaign) => () => {
    const body = bulkBody(campaign, S.bulk);
    sent.get(srv).push(body);
    return { method: 'POST', path: PATH, headers: H, body };
  };
  const again = (srv) => {
    let i = 0;
    return () => ({ method: 'POST', path: PATH, headers: H, body: sent.get(srv)[i++ % sent.get(srv).length] });
  };
  const sides = [
    [leadline, campaigns.leadline],
    [floor, campaigns.floor],
  ];
  const form = JSON.parse((await fetchText(`${floor.url}/health`)).text).forms.bulk;

  // Before timing: both sides create, then skip, the same leads, and name the same identifier.
  for (const [srv, campaign] of sides) {
    const body = fresh(srv, campaign)().body;
    const post = async () =>
      JSON.parse((await fetchText(srv.url + PATH, { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body })).text)
        .data;
    const first = await post();
    const second = await post();
    check(
      `${srv.name} bulk`,
      first.created === S.bulk && second.skipped === S.bulk && second.created === 0,
      `expected ${S.bulk} created then ${S.bulk} skipped, got ${first.created} and ${second.skipped}`,
    );
    check(`${srv.name} bulk`, second.skippedIdentifiers[0] === JSON.parse(body).leads[0].externalId, 'skipped identifier');
    await sequential(srv.url, fresh(srv, campaign), 3); // warm-up
  }

  for (const [n, label, make] of [
    [1, `bulk create ${S.bulk} new leads`, (srv, campaign) => fresh(srv, campaign)],
    [2, `bulk create ${S.bulk} duplicates`, (srv) => again(srv)],
  ]) {
    if (!wants(n)) continue;
    log(`${ctx.kind}: ${n} ${label}`);
    const [makeL, makeF] = sides.map(([srv, campaign]) => make(srv, campaign));
    const [a, b] = await interleaved(
      S.rounds,
      () => sequential(leadline.url, makeL, S.perRound),
      () => sequential(floor.url, makeF, S.perRound),
    );
    a.concat(b).forEach((s) => {
      expectStatus(label, s.statuses, 200);
    });
    if (n === 1) floors.bulk = b.flatMap((s) => s.ms);
    const row = latencyRow(
      base(n, label),
      a.flatMap((s) => s.ms),
      b.flatMap((s) => s.ms),
      1.3,
    );
    row.note =
      n === 1
        ? `floor: one INSERT … ON CONFLICT DO NOTHING RETURNING from ${FORMS[form] ?? form}`
        : `floor: the batch's identifiers looked up in their unique indexes (its first lead was there), nothing left to insert`;
    rows.push(row);
  }
  return sent.get(leadline).length * S.bulk;
}
