// The Redis key-value store: plain string keys under a prefix, `SET NX PX` for consume, one Lua script for setMax.
import { createHash } from "node:crypto"
import type { Cluster, Redis } from "ioredis"
import type { KeyValueStore, RateLimitStore } from "../kv"
import { checkKey, checkMaxValue, checkValue, ttlMs } from "../kv"
import { checkReplicaWait, replicated } from "./replicas"
import type { ReplicaWait } from "./replicas"

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** Prepended to every key. Default `gatehouse:kv:`. */
  prefix?: string
  /** Waits for this many replicas after `set`, `setMax` and a won `consume` (see the adapter's option). */
  waitForReplicas?: ReplicaWait
}

/**
 * KEYS: the entry. ARGV: the number, the TTL in ms. Keeps the larger integer and never shortens the entry's life.
 * A live non-integer is replaced. Returns the stored number as a string (Lua numbers would lose the type on return).
 */
const SET_MAX = `
local cur = redis.call('GET', KEYS[1])
local ttl = tonumber(ARGV[2])
local n = cur and string.match(cur, '^%-?%d+$') and tonumber(cur)
if n and n >= tonumber(ARGV[1]) then
  local left = redis.call('PTTL', KEYS[1])
  if left >= 0 and left < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
  return cur
end
local left = cur and redis.call('PTTL', KEYS[1]) or -2
if left > ttl then ttl = left end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
return ARGV[1]`
const SET_MAX_SHA = createHash("sha1").update(SET_MAX).digest("hex")

/**
 * KEYS: the counter. ARGV: the window in ms. INCR, and the window's expiry set by the hit that opened it (a counter
 * left without one is given one; a live non-counter value is replaced). Returns the count and the milliseconds left.
 */
const HIT = `
local cur = redis.call('GET', KEYS[1])
if cur and not string.match(cur, '^%d+$') then redis.call('DEL', KEYS[1]) end
local n = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if n == 1 or left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {n, left}`
const HIT_SHA = createHash("sha1").update(HIT).digest("hex")

/**
 * Creates a store on an ioredis client: a `Redis` (one node, with or without replicas) or a `Cluster`. Every operation
 * touches one key, so each is atomic on a cluster as on one node: `consume` is one `SET key 1 NX PX ttl`, so of
 * concurrent callers exactly one wins, across every process that shares the data; expiry is Redis's own. On a cluster
 * `get` of several keys sends one `GET` per key at once (an `MGET` may not span slots). Needs Redis 6.2+.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisStore } from "gatehouse-auth/store/redis"
 * const store = RedisStore(new Redis(process.env.REDIS_URL!), { prefix: "myapp:kv:" })
 * ```
 */
export function RedisStore(client: Redis | Cluster, options: RedisStoreOptions = {}): KeyValueStore & RateLimitStore {
  const prefix = options.prefix ?? "gatehouse:kv:"
  const k = (key: string): string => prefix + checkKey(key)
  const wait = checkReplicaWait(options.waitForReplicas)
  const script = async (source: string, sha: string, args: Array<string | number>): Promise<unknown> => {
    try {
      return await client.evalsha(sha, 1, ...args)
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error
      return client.eval(source, 1, ...args)
    }
  }

  return {
    async get(keys) {
      if (keys.length === 0) return []
      const names = keys.map(k)
      if (client.isCluster && names.length > 1) return Promise.all(names.map((name) => client.get(name)))
      return client.mget(...names)
    },
    async set(key, value, ttlSeconds) {
      await client.set(k(key), checkValue(value), "PX", ttlMs(ttlSeconds))
      await replicated(client, wait, k(key))
    },
    async setMax(key, value, ttlSeconds) {
      const result = await script(SET_MAX, SET_MAX_SHA, [k(key), String(checkMaxValue(value)), ttlMs(ttlSeconds)])
      await replicated(client, wait, k(key))
      return Number(result)
    },
    async consume(key, ttlSeconds) {
      const created = await client.set(k(key), "1", "PX", ttlMs(ttlSeconds), "NX")
      if (created === "OK") await replicated(client, wait, k(key))
      return created === "OK"
    },
    async hit(key, windowSeconds) {
      const [count, left] = (await script(HIT, HIT_SHA, [k(key), ttlMs(windowSeconds)])) as [number, number]
      return { count: Number(count), resetMs: Math.max(1, Number(left)) }
    },
    async reset(key) {
      await client.del(k(key))
    },
  }
}

export default RedisStore
