/**
 * A retry answered by reads: which leads of a batch are new, given the
 * identifiers the campaign holds already. Decided in request order, so a lead
 * repeating an earlier one of the batch is a duplicate too, as the unique
 * indexes would decide it. The leads are as parsed (an absent identifier is
 * undefined) or complete rows (null): both read as absent.
 * @param {Set<string>} externalIds taken (grows with the batch's new leads)
 * @param {Set<string>} phoneNumbers taken (grows with the batch's new leads)
 */
export function freshLeads(leads, externalIds, phoneNumbers) {
  const fresh = [];
  for (const l of leads) {
    const e = l.externalId ?? null;
    const p = l.phoneNumber ?? null;
    if ((e !== null && externalIds.has(e)) || (p !== null && phoneNumbers.has(p))) continue;
    if (e !== null) externalIds.add(e);
    if (p !== null) phoneNumbers.add(p);
    fresh.push(l);
  }
  return fresh;
}

/** the externalIds of leads, and the phone numbers of those whose externalId is not in `found` (looked up second) */
export function externalIdsOf(leads) {
  const values = [];
  for (const l of leads) if ((l.externalId ?? null) !== null) values.push(l.externalId);
  return values;
}
export function phoneNumbersOf(leads, found) {
  const values = [];
  for (const l of leads) {
    if ((l.phoneNumber ?? null) === null || ((l.externalId ?? null) !== null && found.has(l.externalId))) continue;
    values.push(l.phoneNumber);
  }
  return values;
}

/** the first lead's identifiers as a probe binds them (null when absent) */
export const firstIdentifiers = (leads) => [leads[0].externalId ?? null, leads[0].phoneNumber ?? null];

/** complete rows as they come: for callers whose rows are built already (row 14) */
export const asRows = (rows) => rows;

/**
 * An insert form of rows as a form of leads: the floor's forms take the leads
 * as parsed and `rowsFor`, which makes them rows (bench/floor/server.js); all
 * but the lookup forms make every lead a row first.
 */
export const eager =
  (form) =>
  (campaignId, now, leads, rowsFor = asRows) =>
    form(campaignId, now, rowsFor(leads));
