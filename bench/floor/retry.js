/**
 * A retry answered by reads: which leads of a batch are new, given the
 * identifiers the campaign holds already. Decided in request order, so a lead
 * repeating an earlier one of the batch is a duplicate too, as the unique
 * indexes would decide it.
 * @param {Set<string>} externalIds taken (grows with the batch's new leads)
 * @param {Set<string>} phoneNumbers taken (grows with the batch's new leads)
 */
export function freshRows(rows, externalIds, phoneNumbers) {
  const fresh = [];
  for (const r of rows) {
    if ((r.externalId !== null && externalIds.has(r.externalId)) || (r.phoneNumber !== null && phoneNumbers.has(r.phoneNumber))) continue;
    if (r.externalId !== null) externalIds.add(r.externalId);
    if (r.phoneNumber !== null) phoneNumbers.add(r.phoneNumber);
    fresh.push(r);
  }
  return fresh;
}

/** the externalIds of rows, and the phone numbers of those whose externalId is not in `found` (looked up second) */
export const externalIdsOf = (rows) => rows.flatMap((r) => (r.externalId === null ? [] : [r.externalId]));
export const phoneNumbersOf = (rows, found) =>
  rows.flatMap((r) => (r.phoneNumber === null || (r.externalId !== null && found.has(r.externalId)) ? [] : [r.phoneNumber]));
