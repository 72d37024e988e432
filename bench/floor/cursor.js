/**
 * leadline's list cursor (src/leads/cursor.ts), written again here since the
 * floor imports nothing of leadline's: one AES-256 block holding the seq and a
 * tag of the campaign, under keys derived from the database's own random key,
 * so that both servers answer with the same bytes. A cursor that is opaque and
 * bound to its campaign is part of the work a page cannot do without; the
 * cipher is kept open, as leadline keeps it (1-2 µs a cursor).
 */
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';

/** `databaseKey`: number_digest_key, decoded */
export function listCursors(databaseKey) {
  const derive = (purpose) => createHmac('sha256', databaseKey).update(`leadline list cursor: ${purpose}`).digest();
  const key = derive('cipher');
  const tagKey = derive('campaign');
  const encrypt = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
  const decrypt = createDecipheriv('aes-256-ecb', key, null).setAutoPadding(false);
  const tags = new Map();
  const tag = (campaignId) => {
    let t = tags.get(campaignId);
    if (!t) tags.set(campaignId, (t = createHmac('sha256', tagKey).update(campaignId).digest().subarray(0, 8)));
    return t;
  };
  return {
    encode(campaignId, seq) {
      const block = Buffer.allocUnsafe(16);
      block.writeUInt32BE(Math.floor(seq / 2 ** 32), 0);
      block.writeUInt32BE(seq >>> 0, 4);
      tag(campaignId).copy(block, 8);
      return encrypt.update(block).toString('base64url');
    },
    decode(campaignId, cursor) {
      const block = decrypt.update(Buffer.from(cursor, 'base64url'));
      if (!block.subarray(8).equals(tag(campaignId))) throw new Error('a cursor of another campaign');
      return block.readUInt32BE(0) * 2 ** 32 + block.readUInt32BE(4);
    },
  };
}
