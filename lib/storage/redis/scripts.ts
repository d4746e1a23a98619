// Lua scripts of the Redis adapter: each runs atomically on the server, so indexes never disagree with records.
import { createHash } from "node:crypto"
import type { Cluster, Redis } from "ioredis"

/** A script and its SHA-1, run with EVALSHA (falling back to EVAL when the server has not cached it yet). */
export interface Script {
  readonly source: string
  readonly sha: string
}

export function script(source: string): Script {
  return { source, sha: createHash("sha1").update(source).digest("hex") }
}

/** Runs a script with its keys and arguments. */
export async function run(
  client: Redis | Cluster,
  s: Script,
  keys: string[],
  args: Array<string | number | Buffer>,
): Promise<unknown> {
  try {
    return await client.evalsha(s.sha, keys.length, ...keys, ...args)
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error
    return client.eval(s.source, keys.length, ...keys, ...args)
  }
}

/** KEYS: user, [email index]. ARGV: user JSON, user id, the listing set, the user's member in it. */
export const CREATE_USER = script(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 'id' end
if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then return 'email' end
redis.call('SET', KEYS[1], ARGV[1])
if KEYS[2] then redis.call('SET', KEYS[2], ARGV[2]) end
redis.call('ZADD', ARGV[3], 0, ARGV[4])
return 'ok'`)

/**
 * KEYS: user. ARGV: expected JSON, new JSON, user id, old email index key or '', new email index key or '', the
 * listing set, the user's old member in it, the new member.
 */
export const UPDATE_USER = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return 'missing' end
if cur ~= ARGV[1] then return 'retry' end
if ARGV[4] ~= ARGV[5] then
  if ARGV[5] ~= '' then
    local owner = redis.call('GET', ARGV[5])
    if owner and owner ~= ARGV[3] then return 'email' end
  end
  if ARGV[4] ~= '' and redis.call('GET', ARGV[4]) == ARGV[3] then redis.call('DEL', ARGV[4]) end
  if ARGV[5] ~= '' then redis.call('SET', ARGV[5], ARGV[3]) end
end
if ARGV[7] ~= ARGV[8] then redis.call('ZREM', ARGV[6], ARGV[7]) end
redis.call('ZADD', ARGV[6], 0, ARGV[8])
redis.call('SET', KEYS[1], ARGV[2])
return 'ok'`)

/**
 * KEYS: user, accounts set, sessions set, authenticators set, two-factor row. ARGV: expected user JSON, email index
 * key or '', id, the verification-token index of the email or '', the listing set, the user's member in it, then
 * the OP-session and OP-subject indexes of the user's sessions. Members of the three sets are deleted only if they
 * still belong to this user; every token the token index lists goes (it lists only the address's tokens); the OP
 * indexes lose the members that are gone (a set left empty is gone with them).
 */
export const DELETE_USER = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return 'missing' end
if cur ~= ARGV[1] then return 'retry' end
for i = 2, 4 do
  for _, key in ipairs(redis.call('SMEMBERS', KEYS[i])) do
    local v = redis.call('GET', key)
    if v and cjson.decode(v).userId == ARGV[3] then redis.call('DEL', key) end
  end
  redis.call('DEL', KEYS[i])
end
if ARGV[2] ~= '' and redis.call('GET', ARGV[2]) == ARGV[3] then redis.call('DEL', ARGV[2]) end
if ARGV[4] and ARGV[4] ~= '' then
  for _, key in ipairs(redis.call('SMEMBERS', ARGV[4])) do redis.call('DEL', key) end
  redis.call('DEL', ARGV[4])
end
if ARGV[5] then redis.call('ZREM', ARGV[5], ARGV[6]) end
for i = 7, #ARGV do
  for _, key in ipairs(redis.call('SMEMBERS', ARGV[i])) do
    if redis.call('EXISTS', key) == 0 then redis.call('SREM', ARGV[i], key) end
  end
end
if KEYS[5] then redis.call('DEL', KEYS[5]) end
redis.call('DEL', KEYS[1])
return 'ok'`)

/** KEYS: user, record, user's set. ARGV: record JSON, [PXAT ms]. Fails if the user is missing or the record exists. */
export const CREATE_OWNED = script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'user' end
if redis.call('EXISTS', KEYS[2]) == 1 then return 'exists' end
if ARGV[2] then
  redis.call('SET', KEYS[2], ARGV[1], 'PXAT', ARGV[2])
  for _, key in ipairs(redis.call('SMEMBERS', KEYS[3])) do
    if redis.call('EXISTS', key) == 0 then redis.call('SREM', KEYS[3], key) end
  end
else
  redis.call('SET', KEYS[2], ARGV[1])
end
redis.call('SADD', KEYS[3], KEYS[2])
return 'ok'`)

/**
 * KEYS: an index set (an OP-session or OP-subject index, a verification-token index). ARGV: member, the member's
 * remaining life (ms). Adds the member and keeps the index alive at least that long, so an index outlives none of its
 * members and is not kept past the last. One key, so it runs on either key layout.
 */
export const ADD_EXPIRING_MEMBER = script(`
redis.call('SADD', KEYS[1], ARGV[1])
local want = tonumber(ARGV[2])
local left = redis.call('PTTL', KEYS[1])
if want > 0 and (left < 0 or left < want) then redis.call('PEXPIRE', KEYS[1], want) end
return 1`)

/** KEYS: record. ARGV: prefix, set name ('user-accounts' ...). Deletes the record and its set membership. */
export const DELETE_OWNED = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
redis.call('DEL', KEYS[1])
redis.call('SREM', ARGV[1] .. ARGV[2] .. ':' .. cjson.decode(cur).userId, KEYS[1])
return cur`)

/**
 * KEYS: account. ARGV: the account JSON as read, the new JSON. Compare-and-swap on the whole record: writes only while
 * the stored JSON is still the one read, refresh token included (the caller compared that one). Returns 'ok',
 * 'missing', or 'retry' when the record changed since it was read. The JSON is never re-encoded here: Lua's cjson
 * would round large numbers and turn empty arrays into objects in the account's extra fields.
 */
export const SWAP_ACCOUNT = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return 'missing' end
if cur ~= ARGV[1] then return 'retry' end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 'ok'`)

/** KEYS: record holding a userId. ARGV: prefix. Returns [record, user JSON], or nil if either is missing. */
export const RECORD_AND_USER = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
local user = redis.call('GET', ARGV[1] .. 'user:' .. cjson.decode(cur).userId)
if not user then return false end
return {cur, user}`)

/** KEYS: email index. ARGV: prefix. Returns the user JSON or nil. */
export const USER_BY_EMAIL = script(`
local id = redis.call('GET', KEYS[1])
if not id then return false end
return redis.call('GET', ARGV[1] .. 'user:' .. id)`)

/**
 * KEYS: session. ARGV: prefix, new expires ISO or '', PXAT ms or '', new userId or '', new lastActiveAt ISO or ''.
 * Returns the new JSON, nil if the
 * session is gone, or 'user' if the new user does not exist. Never re-creates a deleted session.
 */
export const UPDATE_SESSION = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
local s = cjson.decode(cur)
if ARGV[4] ~= '' and ARGV[4] ~= s.userId then
  if redis.call('EXISTS', ARGV[1] .. 'user:' .. ARGV[4]) == 0 then return 'user' end
  redis.call('SREM', ARGV[1] .. 'user-sessions:' .. s.userId, KEYS[1])
  redis.call('SADD', ARGV[1] .. 'user-sessions:' .. ARGV[4], KEYS[1])
  s.userId = ARGV[4]
end
if ARGV[2] ~= '' then s.expires = ARGV[2] end
if ARGV[5] and ARGV[5] ~= '' then s.lastActiveAt = ARGV[5] end
local out = cjson.encode(s)
if ARGV[3] ~= '' then redis.call('SET', KEYS[1], out, 'PXAT', ARGV[3]) else redis.call('SET', KEYS[1], out, 'KEEPTTL') end
return out`)

/** KEYS: authenticator. ARGV: new counter. Returns the new JSON or nil. */
export const UPDATE_COUNTER = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
local a = cjson.decode(cur)
a.counter = tonumber(ARGV[1])
local out = cjson.encode(a)
redis.call('SET', KEYS[1], out)
return out`)

/**
 * KEYS: authenticator. ARGV: new counter, expected counter, last-used ISO time. Compare-and-swap: writes only while the
 * stored counter equals the expected one and the new one is not lower. Returns the new JSON or nil.
 */
export const SWAP_COUNTER = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
local a = cjson.decode(cur)
local new = tonumber(ARGV[1])
if tonumber(a.counter) ~= tonumber(ARGV[2]) or new < tonumber(a.counter) then return false end
a.counter = new
a.lastUsedAt = ARGV[3]
local out = cjson.encode(a)
redis.call('SET', KEYS[1], out)
return out`)

/**
 * KEYS: authenticator. ARGV: '1' to set the name, the name ('' with ARGV[3] = '1' for null), '1' if the name is null,
 * '1' to set lastUsedAt, its ISO time or '' for null. Returns the new JSON or nil.
 */
export const PATCH_AUTHENTICATOR = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
local a = cjson.decode(cur)
if ARGV[1] == '1' then
  if ARGV[3] == '1' then a.name = cjson.null else a.name = ARGV[2] end
end
if ARGV[4] == '1' then
  if ARGV[5] == '' then a.lastUsedAt = cjson.null else a.lastUsedAt = ARGV[5] end
end
local out = cjson.encode(a)
redis.call('SET', KEYS[1], out)
return out`)

/** KEYS: a set of record keys. Returns the records that still exist. */
export const LIST_SET = script(`
local out = {}
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local v = redis.call('GET', key)
  if v then table.insert(out, v) end
end
return out`)

/** KEYS: a user's session set. ARGV: the session key to keep, or ''. Deletes the others; returns how many existed. */
export const DELETE_SESSIONS = script(`
local n = 0
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if key ~= ARGV[1] then
    n = n + redis.call('DEL', key)
    redis.call('SREM', KEYS[1], key)
  end
end
return n`)

/**
 * KEYS: user, session, user's session set, OP-session index, OP-subject index. ARGV: session JSON, PXAT ms, '1' to
 * index by the OP session id (KEYS[4]), '1' to index by the OP subject (KEYS[5]). Like {@link CREATE_OWNED}, plus the
 * back-channel logout indexes; members whose session has expired or gone are pruned from each set touched.
 */
export const CREATE_SESSION = script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'user' end
if redis.call('EXISTS', KEYS[2]) == 1 then return 'exists' end
redis.call('SET', KEYS[2], ARGV[1], 'PXAT', ARGV[2])
local sets = {KEYS[3]}
if ARGV[3] == '1' then table.insert(sets, KEYS[4]) end
if ARGV[4] == '1' then table.insert(sets, KEYS[5]) end
for _, set in ipairs(sets) do
  for _, key in ipairs(redis.call('SMEMBERS', set)) do
    if redis.call('EXISTS', key) == 0 then redis.call('SREM', set, key) end
  end
  redis.call('SADD', set, KEYS[2])
end
return 'ok'`)

/**
 * KEYS: an OP-session or OP-subject index. ARGV: prefix, provider, sid or '', sub or ''. Deletes the indexed sessions
 * of that provider whose `idpSid`/`idpSub` match every one given (and their user-set membership); returns their JSON.
 * Members that no longer exist are pruned; a member of the other index is pruned when that index is next written.
 */
export const DELETE_SESSIONS_BY_IDP = script(`
local out = {}
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local cur = redis.call('GET', key)
  if not cur then
    redis.call('SREM', KEYS[1], key)
  else
    local s = cjson.decode(cur)
    if s.provider == ARGV[2] and (ARGV[3] == '' or s.idpSid == ARGV[3]) and (ARGV[4] == '' or s.idpSub == ARGV[4]) then
      redis.call('DEL', key)
      redis.call('SREM', KEYS[1], key)
      redis.call('SREM', ARGV[1] .. 'user-sessions:' .. s.userId, key)
      table.insert(out, cur)
    end
  end
end
return out`)
