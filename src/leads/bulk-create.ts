/**
 * Bulk create's two plans. Both answer in request order: which rows were
 * created, and for each skipped one the identifier it collided with,
 * externalId checked first (docs/api.md, "Leads").
 */
import { orderedIds } from '../ids.js';
import type { Store } from '../store/index.js';
import type { IdentifierRow, NewLeadRow } from '../store/leads.js';

/**
 * Inserts every row in request order; the unique indexes skip a row that
 * repeats a lead of the campaign or an earlier row, as the rules say. The
 * skipped rows are then looked up to name what each collided with:
 * externalId first, counting only leads that were there before and rows
 * earlier in the request.
 */
export function insertThenLookup(store: Store, campaignId: string, rows: NewLeadRow[], now: () => number): Promise<Plan> {
  giveIds(rows, now());
  return store.transaction(
    async (tx) => {
      const inserted = await tx.leads.insertMany(campaignId, rows, now());
      const plan: Plan = rows.map((row) => ({ id: row.id, skippedAs: null }));
      const skipped = rows.filter((r) => !inserted.has(r.id));
      if (skipped.length === 0) return plan;
      const found = await tx.leads.findExisting(campaignId, externalIdsOf(skipped), phoneNumbersOf(skipped));
      // who holds each identifier: -1 for a lead from before, else the index of the row that inserted it
      const index = new Map(rows.map((r, i) => [r.id, i]));
      const byExternalId = new Map<string, number>();
      const byPhoneNumber = new Map<string, number>();
      for (const f of found) {
        const at = index.get(f.id) ?? -1;
        if (f.external_id !== null) byExternalId.set(f.external_id, at);
        if (f.phone_number !== null) byPhoneNumber.set(f.phone_number, at);
      }
      plan.forEach((x, i) => {
        if (inserted.has(x.id)) return;
        const { externalId, phoneNumber } = rows[i]!;
        if (externalId !== null && (byExternalId.get(externalId) ?? i) < i) x.skippedAs = externalId;
        else if (phoneNumber !== null && (byPhoneNumber.get(phoneNumber) ?? i) < i) x.skippedAs = phoneNumber;
        // what it collided with was deleted meanwhile by another request
        else x.skippedAs = externalId ?? phoneNumber;
      });
      return plan;
    },
    { lock: `leads:${campaignId}`, bounded: true },
  );
}

/**
 * Looks the leads up, decides in request order, and writes only if something
 * is new. Only the new leads are made rows (`toRow`: the metadata's text, the
 * UTC time): a retry whose leads are all there makes none (1000 rows were
 * 0.23 ms of a 5 ms retry).
 */
export async function lookupThenInsert(
  store: Store,
  campaignId: string,
  leads: readonly Identifiers[],
  toRow: (index: number) => NewLeadRow,
  now: () => number,
): Promise<Plan> {
  // externalId is checked first, so only leads whose externalId is free need
  // their phone number looked up: a retry of leads with externalIds costs
  // one lookup of 1000 identifiers instead of two.
  const externalIds = await store.leads.taken(campaignId, 'external_id', externalIdsOf(leads));
  const rest = leads.filter((l) => l.externalId == null || !externalIds.has(l.externalId));
  const taken = { externalIds, phoneNumbers: await store.leads.taken(campaignId, 'phone_number', phoneNumbersOf(rest)) };
  // Decide in request order, so a later entry repeating an earlier one is the duplicate.
  const fresh: number[] = [];
  const plan: Plan = leads.map((lead, i) => {
    const hit = duplicateOf(lead, taken);
    if (hit === null) {
      if (lead.externalId != null) taken.externalIds.add(lead.externalId);
      if (lead.phoneNumber != null) taken.phoneNumbers.add(lead.phoneNumber);
      fresh.push(i);
    }
    return { id: '', skippedAs: hit };
  });
  if (fresh.length === 0) return plan;
  const toInsert = fresh.map(toRow);
  giveIds(toInsert, now());
  fresh.forEach((i, k) => {
    plan[i]!.id = toInsert[k]!.id;
  });
  await store.transaction(
    async (tx) => {
      const inserted = await tx.leads.insertMany(campaignId, toInsert, now());
      if (inserted.size < toInsert.length) {
        // Another request inserted some of them after our lookup; the unique
        // indexes refused ours. Report what they collided with.
        const lost = toInsert.filter((r) => !inserted.has(r.id));
        const now = identifierSets(await tx.leads.findExisting(campaignId, externalIdsOf(lost), phoneNumbersOf(lost)));
        toInsert.forEach((row, k) => {
          if (!inserted.has(row.id)) plan[fresh[k]!]!.skippedAs = duplicateOf(row, now) ?? row.externalId ?? row.phoneNumber;
        });
      }
    },
    { lock: `leads:${campaignId}`, bounded: true },
  );
  return plan;
}

/**
 * Ids for the rows about to be inserted, from one random draw: only those
 * get one, so a retry whose leads are all there draws none (1000 ids were
 * 0.19 ms of a 5-12 ms retry).
 */
function giveIds(rows: NewLeadRow[], now: number): void {
  const ids = orderedIds('ld_', rows.length, now);
  for (let i = 0; i < rows.length; i++) rows[i]!.id = ids[i]!;
}

/** for each lead of a bulk create, in request order: the id it was created with, or the identifier it was skipped as */
export type Plan = { id: string; skippedAs: string | null }[];

/** a lead's identifiers: a row's (null when absent) or a request's (undefined) */
type Identifiers = { externalId?: string | null; phoneNumber?: string | null };

const externalIdsOf = (leads: readonly Identifiers[]) => present(leads, 'externalId');
const phoneNumbersOf = (leads: readonly Identifiers[]) => present(leads, 'phoneNumber');

/** the leads' values of one identifier, absent ones left out: a loop, as flatMap's array per lead cost 0.1 ms in a 1000-lead retry */
function present(leads: readonly Identifiers[], key: 'externalId' | 'phoneNumber'): string[] {
  const values: string[] = [];
  for (const l of leads) {
    const v = l[key];
    if (v != null) values.push(v);
  }
  return values;
}

function identifierSets(rows: readonly IdentifierRow[]) {
  const externalIds = new Set<string>();
  const phoneNumbers = new Set<string>();
  for (const r of rows) {
    if (r.external_id !== null) externalIds.add(r.external_id);
    if (r.phone_number !== null) phoneNumbers.add(r.phone_number);
  }
  return { externalIds, phoneNumbers };
}

/** the identifier a lead collides with, externalId checked first; null when new */
function duplicateOf(lead: Identifiers, taken: ReturnType<typeof identifierSets>): string | null {
  if (lead.externalId != null && taken.externalIds.has(lead.externalId)) return lead.externalId;
  if (lead.phoneNumber != null && taken.phoneNumbers.has(lead.phoneNumber)) return lead.phoneNumber;
  return null;
}
