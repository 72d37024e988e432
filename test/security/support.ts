/**
 * What the security suites share: the contract's rules for a stored lead,
 * checked on the rows themselves, and a Store whose queries can be counted.
 */
import type { KyselyPlugin } from 'kysely';
import { storeOn, type Store } from '../../src/store/index.js';

const E164 = /^\+[1-9][0-9]{1,14}$/;
// NUL or a UTF-16 surrogate that is not half of a pair
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what the stores cannot hold
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const METADATA_MAX = 16 * 1024;

/** every way a stored lead breaks docs/api.md "Leads"; empty when none does */
export async function forbiddenLeads(db: Store): Promise<string[]> {
  const rows = await db.kysely.selectFrom('leads').selectAll().execute();
  const campaigns = new Set((await db.kysely.selectFrom('campaigns').select('id').execute()).map((c) => c.id));
  const problems: string[] = [];
  const seen = new Set<string>();
  const bad = (row: { id: string }, what: string) => problems.push(`${row.id}: ${what}`);
  for (const row of rows) {
    if (!campaigns.has(row.campaign_id)) bad(row, `unknown campaign ${row.campaign_id}`);
    if (row.phone_number === null && row.external_id === null) bad(row, 'no identifier');
    if (row.phone_number !== null && !E164.test(row.phone_number)) bad(row, `phoneNumber ${JSON.stringify(row.phone_number)}`);
    if (row.external_id !== null) {
      const length = [...row.external_id].length;
      if (length < 1 || length > 255 || UNSTORABLE.test(row.external_id)) bad(row, `externalId ${JSON.stringify(row.external_id)}`);
    }
    const priority = Number(row.priority);
    if (!Number.isInteger(priority) || priority < 0 || priority > 100) bad(row, `priority ${row.priority}`);
    let metadata: unknown;
    try {
      metadata = JSON.parse(row.metadata);
    } catch {
      bad(row, 'metadata is not JSON');
    }
    if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) bad(row, `metadata ${row.metadata.slice(0, 40)}`);
    if (Buffer.byteLength(row.metadata) > METADATA_MAX) bad(row, `metadata of ${Buffer.byteLength(row.metadata)} bytes`);
    if (row.scheduled_for !== null) {
      const time = Date.parse(row.scheduled_for);
      if (Number.isNaN(time) || new Date(time).toISOString() !== row.scheduled_for) bad(row, `scheduledFor ${row.scheduled_for}`);
    }
    if (row.status !== 'raw') bad(row, `status ${row.status}`);
    if (Number(row.attempts) !== 0) bad(row, `attempts ${row.attempts}`);
    for (const [kind, value] of [
      ['externalId', row.external_id],
      ['phoneNumber', row.phone_number],
    ] as const) {
      if (value === null) continue;
      const key = `${row.campaign_id}\u0001${kind}\u0001${value}`;
      if (seen.has(key)) bad(row, `duplicate ${kind} ${value} in ${row.campaign_id}`);
      seen.add(key);
    }
  }
  return problems;
}

/** the same database, with every query made through `db.kysely` counted */
export function countingDb(db: Store): { db: Store; queries(): number } {
  let count = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      count++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { db: storeOn({ ...db, kysely: db.kysely.withPlugin(plugin) }), queries: () => count };
}

/** a value with one character changed, at `index` from the end (so the checksum by default) */
export function tamper(value: string, index = 1): string {
  const i = value.length - index;
  const c = value[i]!;
  const swapped = c === 'a' ? 'b' : c === '0' ? '1' : /[0-9]/.test(c) ? '0' : 'a';
  return value.slice(0, i) + swapped + value.slice(i + 1);
}
