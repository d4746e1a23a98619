// next-wave E6 on the shared stores: 100 parallel credential POSTs from one IP, exactly 10 reach authorize, with the
// counters in PostgreSQL (`store: "adapter"`, the config's key-value store) and in Redis (a store object). Two app
// instances on one store share the count.
import { Pool } from "pg"
import Redis from "ioredis"
import { migrate } from "../../lib/storage/postgres/adapter"
import { PostgresStore } from "../../lib/storage/postgres/store"
import { RedisStore } from "../../lib/storage/redis/store"
import type { AuthConfig, RateLimitOptions } from "../../lib/core/kernel/types"
import { DATABASE_URL, POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { csrfOf, limitedApp, postSignIn } from "./harness"

const wrong = (i: number) => ({ email: `user${i}@example.com`, password: "wrong" })

async function hundredInParallel(rateLimit: RateLimitOptions, config: Partial<AuthConfig> = {}) {
  const { app, authorized } = limitedApp({ rateLimit, config })
  const csrf = await csrfOf(app)
  const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => postSignIn(app, csrf, wrong(i))))
  return { authorized, responses }
}

async function twoInstances(rateLimit: RateLimitOptions, config: Partial<AuthConfig> = {}) {
  const one = limitedApp({ rateLimit, config })
  const two = limitedApp({ rateLimit, config })
  const [csrfOne, csrfTwo] = [await csrfOf(one.app), await csrfOf(two.app)]
  const locations: string[] = []
  for (let i = 0; i < 12; i += 1) {
    const [app, csrf] = i % 2 === 0 ? [one.app, csrfOne] : [two.app, csrfTwo]
    locations.push(String((await postSignIn(app, csrf, wrong(i))).headers.location))
  }
  return { reached: one.authorized.length + two.authorized.length, locations }
}

describeWithService(POSTGRES, 'E6 on PostgreSQL (rateLimit.store: "adapter")', () => {
  const schema = `gatehouse_rl_${randomSuffix()}`
  const pool = new Pool({ connectionString: DATABASE_URL, max: 10 })
  beforeAll(async () => {
    await migrate(pool, { schema })
  })
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await pool.end()
  })

  it("exactly 10 of 100 parallel POSTs reach authorize; the counter row holds the hashed key", async () => {
    const { authorized, responses } = await hundredInParallel(
      { store: "adapter" },
      { store: PostgresStore(pool, { schema }) },
    )
    expect(authorized).toHaveLength(10)
    expect(responses.filter((r) => /error=RateLimited/.test(String(r.headers.location)))).toHaveLength(90)
    const { rows } = await pool.query(`SELECT key, value FROM "${schema}".gatehouse_kv WHERE key LIKE 'rl:%'`)
    expect(rows.filter((r: { key: string }) => r.key.startsWith("rl:credentials-ip:"))).toEqual([
      { key: expect.stringMatching(/^rl:credentials-ip:[\w-]{43}$/), value: "100" },
    ])
    expect(JSON.stringify(rows)).not.toMatch(/127\.0\.0\.1|example\.com/)
  })

  it("two instances on the same database share one count", async () => {
    await pool.query(`DELETE FROM "${schema}".gatehouse_kv`)
    const { reached, locations } = await twoInstances({ store: "adapter" }, { store: PostgresStore(pool, { schema }) })
    expect(reached).toBe(10)
    expect(locations.slice(10).every((l) => /error=RateLimited/.test(l))).toBe(true)
  })
})

describeWithService(REDIS, "E6 on Redis (rateLimit.store: a RedisStore)", () => {
  const prefix = `gatehouse-rl-${randomSuffix()}:`
  const client = new Redis(REDIS_URL, { lazyConnect: true })
  afterAll(async () => {
    const keys = await client.keys(`${prefix}*`)
    if (keys.length > 0) await client.del(...keys)
    await client.quit()
  })

  it("exactly 10 of 100 parallel POSTs reach authorize; the key expires with the window", async () => {
    const { authorized } = await hundredInParallel({ store: RedisStore(client, { prefix: `${prefix}a:` }) })
    expect(authorized).toHaveLength(10)
    const keys = await client.keys(`${prefix}a:rl:credentials-ip:*`)
    expect(keys).toHaveLength(1)
    await expect(client.get(keys[0]!)).resolves.toBe("100")
    const ttl = await client.pttl(keys[0]!)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(60_000)
  })

  it("two instances on the same Redis share one count", async () => {
    const { reached, locations } = await twoInstances({ store: RedisStore(client, { prefix: `${prefix}b:` }) })
    expect(reached).toBe(10)
    expect(locations.slice(10).every((l) => /error=RateLimited/.test(l))).toBe(true)
  })
})

describe("E6 on the memory store, for comparison: two instances do not share", () => {
  it("each instance counts alone (so several instances need a shared store)", async () => {
    const { reached } = await twoInstances({ store: "memory" })
    expect(reached).toBe(12)
  })
})
