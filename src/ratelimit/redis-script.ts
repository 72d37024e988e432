// One round trip, atomic: concurrent hits from any number of instances are
// serialised by Redis, so together they never admit more than `limit`.
// KEYS: one sorted set per window (score = admission time in ms, member
// unique per hit). ARGV: now ('' = Redis TIME, so skewed app clocks agree),
// member, then limit and windowMs for each window.
// Reply: allowed (0/1), then count and resetAt for each window.
export const HIT_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local limits, lens, counts = {}, {}, {}
local allowed = 1
for i = 1, #KEYS do
  limits[i] = tonumber(ARGV[2 * i + 1])
  lens[i] = tonumber(ARGV[2 * i + 2])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - lens[i])
  counts[i] = redis.call('ZCARD', KEYS[i])
  if counts[i] >= limits[i] then allowed = 0 end
end
local out = { allowed }
for i = 1, #KEYS do
  if allowed == 1 then
    redis.call('ZADD', KEYS[i], now, ARGV[2])
    redis.call('PEXPIRE', KEYS[i], lens[i])
    counts[i] = counts[i] + 1
  end
  -- The entry whose departure makes room for one more: the oldest, unless a
  -- lowered limit left the set over-full.
  local idx = 0
  if allowed == 0 and counts[i] > limits[i] then idx = counts[i] - limits[i] end
  local reset = now
  if counts[i] > 0 then
    reset = tonumber(redis.call('ZRANGE', KEYS[i], idx, idx, 'WITHSCORES')[2])
  end
  out[2 * i] = counts[i]
  out[2 * i + 1] = reset + lens[i]
end
return out
`;

// Takes one admitted hit back out of every window of its key, atomically, as
// HIT_SCRIPT put it in: KEYS as for HIT_SCRIPT, ARGV[1] the hit's member.
// Reply: how many windows still held it (0 once it had left them all).
export const REFUND_SCRIPT = `
local removed = 0
for i = 1, #KEYS do
  removed = removed + redis.call('ZREM', KEYS[i], ARGV[1])
end
return removed
`;
