// The Redis key-value store: plain string keys under a prefix, `SET NX PX` for consume, one Lua script for setMax.
import { createHash } from "node:crypto"
import type Redis from "ioredis"
import type { KeyValueStore } from "./types"
import { checkKey, checkMaxValue, checkValue, ttlMs } from "./types"

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** Prepended to every key. Default `gatehouse:kv:`. */
  prefix?: string
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
 * Creates a store on an ioredis client. `consume` is one `SET key 1 NX PX ttl`, so of concurrent callers exactly one
 * wins, across every process that shares the server; expiry is Redis's own. Needs Redis 6.2+; not for Cluster.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisStore } from "gatehouse-auth/store/redis"
 * const store = RedisStore(new Redis(process.env.REDIS_URL!), { prefix: "myapp:kv:" })
 * ```
 */
export function RedisStore(client: Redis, options: RedisStoreOptions = {}): KeyValueStore {
  const prefix = options.prefix ?? "gatehouse:kv:"
  const k = (key: string): string => prefix + checkKey(key)

  return {
    async get(keys) {
      if (keys.length === 0) return []
      return client.mget(...keys.map(k))
    },
    async set(key, value, ttlSeconds) {
      await client.set(k(key), checkValue(value), "PX", ttlMs(ttlSeconds))
    },
    async setMax(key, value, ttlSeconds) {
      const args = [k(key), String(checkMaxValue(value)), ttlMs(ttlSeconds)] as const
      let result: unknown
      try {
        result = await client.evalsha(SET_MAX_SHA, 1, ...args)
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error
        result = await client.eval(SET_MAX, 1, ...args)
      }
      return Number(result)
    },
    async consume(key, ttlSeconds) {
      const created = await client.set(k(key), "1", "PX", ttlMs(ttlSeconds), "NX")
      return created === "OK"
    },
  }
}

export default RedisStore
