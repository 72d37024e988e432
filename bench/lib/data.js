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

/**
 * The diag tools' loads (bench/diag/side-by-side.js, instructions.js): row 5's
 * small calls, or row 2's `retry`, the same 1000 leads sent again and again
 * (every lead is there, so nothing is written and every request does the same
 * work). `seed` is the bulk body sent once before the load.
 */
export function diagLoad(what, campaignId, headers) {
  if (what !== 'retry') return { seed: bulkBody(campaignId, 10), make: smallCall(what, campaignId, headers) };
  const body = bulkBody(campaignId, 1000);
  const json = { ...headers, 'content-type': 'application/json' };
  return { seed: body, make: () => ({ method: 'POST', path: '/api/v1/leads/bulk', headers: json, body }) };
}

/** row 5's small calls, as load.js's request makers: `list` (limit=1) or `create` (one new lead) */
export function smallCall(what, campaignId, headers) {
  return what === 'list'
    ? () => ({ path: `/api/v1/leads?campaignId=${campaignId}&limit=1`, headers })
    : () => ({ method: 'POST', path: '/api/v1/leads', headers, body: singleBody(campaignId) });
}
