/**
 * Request bodies. Every lead is new unless a body is sent again on purpose:
 * phone numbers and externalIds come from one counter per run.
 */
let next = 1;

/** a lead as a CRM import sends it: both identifiers, a little metadata, some scheduled */
export function lead(n) {
  const l = {
    phoneNumber: `+1${2_000_000_000 + n}`,
    externalId: `crm-${n}`,
    metadata: { name: `Lead ${n}`, company: 'Acme Corp', notes: 'met at the spring expo' },
    priority: n % 101,
  };
  if (n % 4 === 0) l.scheduledFor = '2030-01-02T03:04:05+01:00';
  return l;
}

/** count fresh leads for campaignId, as a JSON body */
export function bulkBody(campaignId, count) {
  const leads = new Array(count);
  for (let i = 0; i < count; i++) leads[i] = lead(next++);
  return JSON.stringify({ campaignId, leads });
}

export function singleBody(campaignId) {
  return JSON.stringify({ campaignId, ...lead(next++) });
}

/** row 5's small calls, as load.js's request makers: `list` (limit=1) or `create` (one new lead) */
export function smallCall(what, campaignId, headers) {
  return what === 'list'
    ? () => ({ path: `/api/v1/leads?campaignId=${campaignId}&limit=1`, headers })
    : () => ({ method: 'POST', path: '/api/v1/leads', headers, body: singleBody(campaignId) });
}
