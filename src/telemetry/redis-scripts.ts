/**
 * Lua run inside Redis, so that each call sees and changes a context atomically (whichever node
 * sends it). Keys of a context share the prefix KEYS[1]:
 *   {prefix}:signals        hash   signal id → total
 *   {prefix}:version        string operations applied (the snapshot's cursor)
 *   {prefix}:users:{id}     zset   userid → last seen (ms), pruned past the window
 *   {prefix}:window:{id}    hash   per second of the window, one slot each (second % window):
 *                                  t{slot} the second it holds, s{slot} its sum, c{slot} its count
 * Every key expires two windows after the context's (or signal's) last operation, as the memory
 * store evicts idle contexts. The prefix holds a hash tag, so that on a Redis Cluster a context's
 * keys share one slot (a script may only touch keys of one slot).
 */

/** ARGV: now (ms), window (s), max signals, allOrNone (1/0), userid, then (signal id, amount) pairs. Returns 1/0 per pair: fitted. */
export const APPLY = `
local prefix = KEYS[1]
local now, window, max = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local allOrNone, userid = ARGV[4] == '1', ARGV[5]
local signals = prefix .. ':signals'
local n = (#ARGV - 5) / 2
local held = redis.call('HLEN', signals)
local added, nadded, fits = {}, 0, {}
for i = 1, n do
  local id = ARGV[4 + 2 * i]
  if added[id] or redis.call('HEXISTS', signals, id) == 1 then
    fits[i] = 1
  elseif held + nadded >= max then
    fits[i] = 0
  else
    added[id] = true
    nadded = nadded + 1
    fits[i] = 1
  end
end
if allOrNone then
  for i = 1, n do
    if fits[i] == 0 then return fits end
  end
end
local ttl = window * 2000
local second = math.floor(now / 1000)
local slot = second % window
local applied = 0
for i = 1, n do
  if fits[i] == 1 then
    local id, amount = ARGV[4 + 2 * i], ARGV[5 + 2 * i]
    redis.call('HINCRBYFLOAT', signals, id, amount)
    local users = prefix .. ':users:' .. id
    local seen = redis.call('ZSCORE', users, userid)
    if not seen or tonumber(seen) < now then redis.call('ZADD', users, now, userid) end
    redis.call('ZREMRANGEBYSCORE', users, '-inf', now - window * 1000)
    local buckets = prefix .. ':window:' .. id
    if redis.call('HGET', buckets, 't' .. slot) == tostring(second) then
      redis.call('HINCRBYFLOAT', buckets, 's' .. slot, amount)
      redis.call('HINCRBY', buckets, 'c' .. slot, 1)
    else
      redis.call('HSET', buckets, 't' .. slot, tostring(second), 's' .. slot, amount, 'c' .. slot, 1)
    end
    redis.call('PEXPIRE', users, ttl)
    redis.call('PEXPIRE', buckets, ttl)
    applied = applied + 1
  end
end
if applied > 0 then
  redis.call('INCRBY', prefix .. ':version', applied)
  redis.call('PEXPIRE', prefix .. ':version', ttl)
  redis.call('PEXPIRE', signals, ttl)
end
return fits
`;

/**
 * ARGV: now (ms), window (s), one signal id or '' for all. Returns the version, then per signal
 * { id, total, active users, the window hash's fields and values }; the figures are computed by
 * the caller (Lua would round the sums).
 */
export const VIEW = `
local prefix = KEYS[1]
local now, window, only = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local signals = prefix .. ':signals'
local fields
if only ~= '' then
  local total = redis.call('HGET', signals, only)
  fields = total and { only, total } or {}
else
  fields = redis.call('HGETALL', signals)
end
local out = { redis.call('GET', prefix .. ':version') or '0' }
local since = tostring(now - window * 1000)
for i = 1, #fields, 2 do
  local id = fields[i]
  local active = redis.call('ZCOUNT', prefix .. ':users:' .. id, '(' .. since, '+inf')
  out[#out + 1] = { id, fields[i + 1], active, redis.call('HGETALL', prefix .. ':window:' .. id) }
end
return out
`;

/**
 * KEYS[1]: the application's index of live contexts (zset contextid → last admitted, ms).
 * ARGV: now (ms), idle (ms, contexts admitted longer ago are dropped), max contexts, contextid.
 * Admits the context (returns 1, stamping it) when the index holds it or fewer than max; else 0.
 */
export const ADMIT_CONTEXT = `
local index = KEYS[1]
local now, idle, max, contextid = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', index, '-inf', now - idle)
if redis.call('ZSCORE', index, contextid) or redis.call('ZCARD', index) < max then
  redis.call('ZADD', index, now, contextid)
  redis.call('PEXPIRE', index, idle)
  return 1
end
return 0
`;
