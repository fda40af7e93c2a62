"""Lua scripts of the shared Redis frontier (:mod:`~smartcrawl.crawl.redisfrontier`), one atomic step each.

Every script gets the job's key prefix as ``ARGV[1]`` and builds its keys from it, so it runs on a
single Redis server (not on Redis Cluster). Keys below the prefix ``P``:

- ``P:seq`` counter of entry ids; ``P:e:<id>`` hash of one entry: ``j`` (the entry as JSON),
  ``pr`` priority, ``sq`` lane number, ``rt`` retries, ``host``, ``site``, ``st`` state (``q`` queued, ``f:<worker>``
  in flight, ``u:<worker>`` finished but not yet confirmed by the worker's local files),
  ``fc`` (1 once a fetch of it counted against the budgets); a *done* entry's hash is deleted (the
  seen-set still maps its fingerprint to the id), so memory grows with the frontier, not the crawl;
- ``P:seen`` hash fingerprint -> entry id (the duplicate filter);
- ``P:q:<host>`` sorted set of the host's queued ids: score ``-priority``, member the entry's lane
  number ``sq`` then its id, 12 digits each, so that equal priorities sort by lane number, then
  by id (first queued, first out, as the SQLite frontier's ``ORDER BY priority DESC, seq, id``);
- ``P:heads`` sorted set of each host's best entry (member ``<24-digit member>|<host>``, same score):
  the first member whose host and site may go is the best entry of the whole crawl; ``P:head``
  hash host -> its member there; ``P:parked`` hosts whose site's budget is spent (kept out of heads);
- ``P:hsite`` host -> site, ``P:sh:<site>`` the site's hosts;
- ``P:hif`` / ``P:sif`` requests in flight per host / site, ``P:iftotal`` in all;
  ``P:sfetched`` fetches per site, ``P:ftotal`` in all, ``P:sstart`` site -> time of its first request;
- ``P:nq`` queued entries (parked ones included); ``P:wf:<worker>`` / ``P:wu:<worker>`` the
  worker's entries in flight / unconfirmed; ``P:alive:<worker>`` its lease (expires unless renewed).
"""

from __future__ import annotations

# Helpers shared by the scripts (prepended to each).
PRELUDE = r"""
local P = ARGV[1]
local function K(s) return P .. ':' .. s end
local function mem(id)
  local sq = redis.call('HGET', K('e:' .. id), 'sq') or '0'
  return string.format('%012d%012d', tonumber(sq), tonumber(id))
end

local function refresh_head(host)
  if redis.call('SISMEMBER', K('parked'), host) == 1 then return end
  local best = redis.call('ZRANGE', K('q:' .. host), 0, 0, 'WITHSCORES')
  local old = redis.call('HGET', K('head'), host)
  if #best == 0 then
    if old then
      redis.call('ZREM', K('heads'), old)
      redis.call('HDEL', K('head'), host)
    end
    return
  end
  local m = best[1] .. '|' .. host
  if m ~= old then
    if old then redis.call('ZREM', K('heads'), old) end
    redis.call('ZADD', K('heads'), best[2], m)
    redis.call('HSET', K('head'), host, m)
  end
end

local function enqueue(id, host, pr)
  redis.call('ZADD', K('q:' .. host), -tonumber(pr), mem(id))
  redis.call('INCR', K('nq'))
  refresh_head(host)
end

local function dequeue(id, host)
  if redis.call('ZREM', K('q:' .. host), mem(id)) == 1 then
    redis.call('DECR', K('nq'))
    refresh_head(host)
  end
end

local function release(w, id, host, site)
  redis.call('SREM', K('wf:' .. w), id)
  redis.call('HINCRBY', K('hif'), host, -1)
  redis.call('HINCRBY', K('sif'), site, -1)
  redis.call('DECR', K('iftotal'))
end

local function admit_one(fp, pr, sq, host, site, j)
  local old = redis.call('HGET', K('seen'), fp)
  if old then
    local ek = K('e:' .. old)
    if redis.call('HGET', ek, 'st') ~= 'q' then return 0 end
    if tonumber(pr) <= tonumber(redis.call('HGET', ek, 'pr')) then return 0 end
    dequeue(old, redis.call('HGET', ek, 'host'))
    redis.call('DEL', ek)
  end
  local id = redis.call('INCR', K('seq'))
  redis.call('HSET', K('e:' .. id), 'j', j, 'pr', pr, 'sq', sq, 'rt', 0, 'host', host, 'site', site, 'st', 'q', 'fc', 0)
  redis.call('HSET', K('seen'), fp, id)
  redis.call('HSET', K('hsite'), host, site)
  redis.call('SADD', K('sh:' .. site), host)
  enqueue(id, host, pr)
  return 1
end

-- items start at ARGV[first]: n groups of (fingerprint, priority, lane number, host, site, json)
local function admit_many(first, n)
  local added = 0
  for i = 0, n - 1 do
    local b = first + 6 * i
    added = added + admit_one(ARGV[b], ARGV[b + 1], ARGV[b + 2], ARGV[b + 3], ARGV[b + 4], ARGV[b + 5])
  end
  return added
end

-- ids start at ARGV[first]: confirm n unconfirmed entries of worker w (their outcome is in its files)
local function confirm_many(w, first, n)
  local done = 0
  for i = first, first + n - 1 do
    local ek = K('e:' .. ARGV[i])
    if redis.call('HGET', ek, 'st') == 'u:' .. w then
      redis.call('DEL', ek)  -- done: only the seen-set keeps its fingerprint
      redis.call('SREM', K('wu:' .. w), ARGV[i])
      done = done + 1
    end
  end
  return done
end

local function reopen_one(w, id)
  local ek = K('e:' .. id)
  if redis.call('HGET', ek, 'st') ~= 'u:' .. w then return 0 end
  redis.call('SREM', K('wu:' .. w), id)
  local host, site, pr, fc = unpack(redis.call('HMGET', ek, 'host', 'site', 'pr', 'fc'))
  if fc == '1' then
    redis.call('HINCRBY', K('sfetched'), site, -1)
    redis.call('DECR', K('ftotal'))
  end
  redis.call('HSET', ek, 'st', 'q', 'fc', 0)
  enqueue(id, host, pr)
  return 1
end
"""

# ARGV: prefix, n, items...  -> number of URLs queued or re-queued with a better priority
ADMIT = PRELUDE + r"""
return admit_many(3, tonumber(ARGV[2]))
"""

# ARGV: prefix, worker, lease_ms, max_per_host, max_pages_per_site, max_seconds_per_site, max_pages
# ('' = no limit), n, n ids to confirm first -> {id, json, priority, retries} of the claimed entry, or
# {-1, hosts with a waiting entry} when none may go now
CLAIM = PRELUDE + r"""
local w = ARGV[2]
redis.call('SET', K('alive:' .. w), '1', 'PX', ARGV[3])
confirm_many(w, 9, tonumber(ARGV[8]))
local maxhost = tonumber(ARGV[4])
local mpps, mspp, mp = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000

local function budget(site)
  local tf = tonumber(redis.call('GET', K('ftotal')) or '0')
  local ti = tonumber(redis.call('GET', K('iftotal')) or '0')
  local sf = tonumber(redis.call('HGET', K('sfetched'), site) or '0')
  local si = tonumber(redis.call('HGET', K('sif'), site) or '0')
  if mp and tf >= mp then return 'spent' end
  if mpps and sf >= mpps then return 'spent' end
  if mspp then
    local s0 = redis.call('HGET', K('sstart'), site)
    if s0 and now - tonumber(s0) >= mspp then return 'spent' end
  end
  if mp and tf + ti >= mp then return 'wait' end
  if mpps and sf + si >= mpps then return 'wait' end
  return 'ok'
end

local function park_site(site)
  for _, h in ipairs(redis.call('SMEMBERS', K('sh:' .. site))) do
    redis.call('SADD', K('parked'), h)
    local old = redis.call('HGET', K('head'), h)
    if old then
      redis.call('ZREM', K('heads'), old)
      redis.call('HDEL', K('head'), h)
    end
  end
end

local blocked = {}
local offset = 0
while true do
  local heads = redis.call('ZRANGE', K('heads'), offset, offset + 63)
  if #heads == 0 then return {-1, redis.call('ZCARD', K('heads'))} end
  local restart = false
  for _, m in ipairs(heads) do
    local host = string.sub(m, 26)
    if tonumber(redis.call('HGET', K('hif'), host) or '0') < maxhost then
      local site = redis.call('HGET', K('hsite'), host)
      if not blocked[site] then
        local status = budget(site)
        if status == 'ok' then
          local id = tonumber(string.sub(m, 13, 24))
          local ek = K('e:' .. id)
          redis.call('ZREM', K('q:' .. host), string.sub(m, 1, 24))
          redis.call('DECR', K('nq'))
          refresh_head(host)
          redis.call('HSET', ek, 'st', 'f:' .. w)
          redis.call('SADD', K('wf:' .. w), id)
          redis.call('HINCRBY', K('hif'), host, 1)
          redis.call('HINCRBY', K('sif'), site, 1)
          redis.call('INCR', K('iftotal'))
          redis.call('HSETNX', K('sstart'), site, string.format('%.6f', now))
          local r = redis.call('HMGET', ek, 'j', 'pr', 'rt')
          return {id, r[1], r[2], r[3]}
        elseif status == 'spent' then
          park_site(site)
          restart = true
          break
        else
          blocked[site] = true
        end
      end
    end
  end
  if restart then offset = 0 else offset = offset + 64 end
end
"""

# ARGV: prefix, worker, lease_ms, id, fetched (0/1), n, n ids to confirm first, m, m items...
# -> URLs queued from the outlinks, or -1 when the entry is not in flight at this worker (lease lost)
COMPLETE = PRELUDE + r"""
local w, id = ARGV[2], ARGV[4]
redis.call('SET', K('alive:' .. w), '1', 'PX', ARGV[3])
local nc = tonumber(ARGV[6])
confirm_many(w, 7, nc)
local items_at = 7 + nc
local ek = K('e:' .. id)
if redis.call('HGET', ek, 'st') ~= 'f:' .. w then return -1 end
local host, site = unpack(redis.call('HMGET', ek, 'host', 'site'))
release(w, id, host, site)
if ARGV[5] == '1' then
  redis.call('HINCRBY', K('sfetched'), site, 1)
  redis.call('INCR', K('ftotal'))
  redis.call('HSET', ek, 'fc', 1)
end
redis.call('HSET', ek, 'st', 'u:' .. w)
redis.call('SADD', K('wu:' .. w), id)
return admit_many(items_at + 1, tonumber(ARGV[items_at]))
"""

# ARGV: prefix, worker, ids... -> how many went from unconfirmed to done
CONFIRM = PRELUDE + r"""
return confirm_many(ARGV[2], 3, #ARGV - 2)
"""

# ARGV: prefix, worker, id, priority, retries -> 1 when put back in the queue (a retry)
REQUEUE = PRELUDE + r"""
local w, id = ARGV[2], ARGV[3]
local ek = K('e:' .. id)
if redis.call('HGET', ek, 'st') ~= 'f:' .. w then return 0 end
local host, site = unpack(redis.call('HMGET', ek, 'host', 'site'))
release(w, id, host, site)
redis.call('HSET', ek, 'st', 'q', 'pr', ARGV[4], 'rt', ARGV[5])
enqueue(id, host, ARGV[4])
return 1
"""

# ARGV: prefix, worker, ids... -> how many unconfirmed entries of the worker went back to the queue
REOPEN = PRELUDE + r"""
local n = 0
for i = 3, #ARGV do n = n + reopen_one(ARGV[2], ARGV[i]) end
return n
"""

# ARGV: prefix, worker, include_unconfirmed (0/1), only_if_dead (0/1)
# -> {in-flight entries queued again, unconfirmed entries queued again}, or {-1, -1} when alive
RECLAIM = PRELUDE + r"""
local w = ARGV[2]
if ARGV[4] == '1' and redis.call('EXISTS', K('alive:' .. w)) == 1 then return {-1, -1} end
local nf, nu = 0, 0
for _, id in ipairs(redis.call('SMEMBERS', K('wf:' .. w))) do
  local ek = K('e:' .. id)
  if redis.call('HGET', ek, 'st') == 'f:' .. w then
    local host, site, pr = unpack(redis.call('HMGET', ek, 'host', 'site', 'pr'))
    release(w, id, host, site)
    redis.call('HSET', ek, 'st', 'q')
    enqueue(id, host, pr)
    nf = nf + 1
  else
    redis.call('SREM', K('wf:' .. w), id)
  end
end
if ARGV[3] == '1' then
  for _, id in ipairs(redis.call('SMEMBERS', K('wu:' .. w))) do nu = nu + reopen_one(w, id) end
end
if ARGV[4] == '1' then redis.call('HDEL', K('workers'), w) end
return {nf, nu}
"""

# ARGV: prefix, fingerprints... -> per fingerprint 1 when never seen or still queued, else 0
STILL_OPEN = PRELUDE + r"""
local out = {}
for i = 2, #ARGV do
  local id = redis.call('HGET', K('seen'), ARGV[i])
  if not id then
    out[#out + 1] = 1
  elseif redis.call('HGET', K('e:' .. id), 'st') == 'q' then
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
"""

# ARGV: prefix -> entries brought back from parked hosts
RESTORE_PARKED = PRELUDE + r"""
local n = 0
for _, h in ipairs(redis.call('SMEMBERS', K('parked'))) do
  redis.call('SREM', K('parked'), h)
  n = n + redis.call('ZCARD', K('q:' .. h))
  refresh_head(h)
end
return n
"""

# ARGV: prefix -> {hosts with a waiting entry, queued entries, parked entries, in flight, unconfirmed}
STATUS = PRELUDE + r"""
local parked = 0
for _, h in ipairs(redis.call('SMEMBERS', K('parked'))) do parked = parked + redis.call('ZCARD', K('q:' .. h)) end
local unconfirmed = 0
for _, w in ipairs(redis.call('HKEYS', K('workers'))) do unconfirmed = unconfirmed + redis.call('SCARD', K('wu:' .. w)) end
local nq = tonumber(redis.call('GET', K('nq')) or '0')
return {redis.call('ZCARD', K('heads')), nq - parked, parked, tonumber(redis.call('GET', K('iftotal')) or '0'),
        unconfirmed}
"""
