/** leadline's lead JSON, as the floor writes it: by the database (leadJsonSql) or in JS. */

/** the columns a new lead is inserted with, in the order of the floor's VALUES tuples */
export const COLUMNS = 'id, campaign_id, phone_number, external_id, metadata, scheduled_for, priority, status, attempts, created_at';

/**
 * The lead object as JSON text, built by the database (q quotes a text column
 * as JSON). `campaign`: what stands for the quoted campaign id, its column by
 * default, or a parameter bound to JSON.stringify(campaignId) for a page,
 * whose leads are all of the campaign asked for.
 */
export function leadJsonSql(q, campaign = q('campaign_id')) {
  const opt = (name, col) => `case when ${col} is null then '' else ',"${name}":' || ${q(col)} end`;
  return `'{"_id":' || ${q('id')} || ',"campaignId":' || ${campaign}
    || ${opt('phoneNumber', 'phone_number')} || ${opt('externalId', 'external_id')}
    || ',"metadata":' || metadata || ',"status":"' || status || '"'
    || ${opt('scheduledFor', 'scheduled_for')}
    || ',"priority":' || priority || ',"attempts":' || attempts || ',"_creationTime":' || created_at || '}'`;
}

const q = JSON.stringify;

/** the page JSON concatenated in JS from rows as objects (metadata is JSON text already: spliced, never re-parsed) */
export function rowsToJson(rows) {
  let out = '[';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    out +=
      (i ? ',{"_id":' : '{"_id":') +
      q(r.id) +
      ',"campaignId":' +
      q(r.campaign_id) +
      (r.phone_number === null ? '' : ',"phoneNumber":' + q(r.phone_number)) +
      (r.external_id === null ? '' : ',"externalId":' + q(r.external_id)) +
      ',"metadata":' +
      r.metadata +
      ',"status":"' +
      r.status +
      '"' +
      (r.scheduled_for === null ? '' : ',"scheduledFor":' + q(r.scheduled_for)) +
      ',"priority":' +
      r.priority +
      ',"attempts":' +
      r.attempts +
      ',"_creationTime":' +
      r.created_at +
      '}';
  }
  return out + ']';
}

/**
 * The columns a page is selected with when its rows come as arrays, in the
 * order arraysToJson reads them. No campaign_id: every lead of the page is of
 * the campaign asked for (the keyset says `campaign_id = $1`), so it is
 * quoted once instead of fetched and quoted 8000 times.
 */
export const ARRAY_COLUMNS = 'seq, id, phone_number, external_id, metadata, status, scheduled_for, priority, attempts, created_at';

/** rowsToJson for the first n rows given as arrays of ARRAY_COLUMNS (no object per row) */
export function arraysToJson(rows, n, campaignId) {
  const campaign = ',"campaignId":' + q(campaignId);
  let out = '[';
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    out +=
      (i ? ',{"_id":' : '{"_id":') +
      q(r[1]) +
      campaign +
      (r[2] === null ? '' : ',"phoneNumber":' + q(r[2])) +
      (r[3] === null ? '' : ',"externalId":' + q(r[3])) +
      ',"metadata":' +
      r[4] +
      ',"status":"' +
      r[5] +
      '"' +
      (r[6] === null ? '' : ',"scheduledFor":' + q(r[6])) +
      ',"priority":' +
      r[7] +
      ',"attempts":' +
      r[8] +
      ',"_creationTime":' +
      r[9] +
      '}';
  }
  return out + ']';
}
