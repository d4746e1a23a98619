// Lua scripts of the Redis adapter's cluster layout: each names keys of one slot only (one record, or one user's
// hash-tagged keys), so each runs atomically on the master that owns that slot.
import { script } from "./scripts"

/** KEYS: user, one of the user's sets. ARGV: member. -1 when the user is missing, else SADD's answer (1 if added). */
export const ADD_MEMBER = script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('SADD', KEYS[2], ARGV[1])`)

/**
 * KEYS: user, the user's sessions (a sorted set scored by expiry, ms). ARGV: member, its expiry, now. -1 when the user
 * is missing; else drops members already expired and answers ZADD NX's (1 if added).
 */
export const ADD_SESSION_MEMBER = script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
return redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])`)

/** KEYS: a record. Deletes it; answers what it held, or nil. */
export const TAKE = script(`
local cur = redis.call('GET', KEYS[1])
if cur then redis.call('DEL', KEYS[1]) end
return cur`)

/** KEYS: a record holding a userId. ARGV: user id. Deletes it only if it belongs to that user; answers it, or nil. */
export const TAKE_IF_OWNED = script(`
local cur = redis.call('GET', KEYS[1])
if not cur or cjson.decode(cur).userId ~= ARGV[1] then return false end
redis.call('DEL', KEYS[1])
return cur`)

/** KEYS: a key. ARGV: the value expected, the new value. Sets it only while it holds the expected one: 1, else 0. */
export const COMPARE_AND_SET = script(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1`)

/** KEYS: a key. ARGV: the value expected. Deletes it only while it holds that value: 1, else 0. */
export const COMPARE_AND_DELETE = script(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`)

/**
 * KEYS: user, accounts set, sessions sorted set, authenticators set, [two-factor row]. ARGV: the user JSON as read. Deletes the four
 * while the record is still the one read; answers {accounts, sessions, authenticators} (their members, for the caller
 * to delete in their own slots), 'missing' or 'retry'.
 */
export const DELETE_USER = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return 'missing' end
if cur ~= ARGV[1] then return 'retry' end
local out = {redis.call('SMEMBERS', KEYS[2]), redis.call('ZRANGE', KEYS[3], 0, -1), redis.call('SMEMBERS', KEYS[4])}
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
if KEYS[5] then redis.call('DEL', KEYS[5]) end
return out`)

/**
 * KEYS: session. ARGV: new expires ISO or '', PXAT ms or '', new userId or '', new lastActiveAt ISO or ''. Answers
 * the new JSON, or nil when the session is gone (never re-creates it).
 */
export const PATCH_SESSION = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
local s = cjson.decode(cur)
if ARGV[3] ~= '' then s.userId = ARGV[3] end
if ARGV[1] ~= '' then s.expires = ARGV[1] end
if ARGV[4] ~= '' then s.lastActiveAt = ARGV[4] end
local out = cjson.encode(s)
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], out, 'PXAT', ARGV[2]) else redis.call('SET', KEYS[1], out, 'KEEPTTL') end
return out`)

/**
 * KEYS: session. ARGV: provider, sid or '', sub or ''. Deletes the session when it is of that provider and matches
 * every one given; answers it, or nil.
 */
export const TAKE_IDP_SESSION = script(`
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
local s = cjson.decode(cur)
if s.provider ~= ARGV[1] or (ARGV[2] ~= '' and s.idpSid ~= ARGV[2]) or (ARGV[3] ~= '' and s.idpSub ~= ARGV[3]) then
  return false
end
redis.call('DEL', KEYS[1])
return cur`)
