// The Redis store passes the contract under its own prefix, with two clients; its keys carry the prefix and a TTL.
import Redis from "ioredis"
import { RedisStore } from "../../lib/storage/redis/store"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import { REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { runStoreContract } from "./contract"

describeWithService(REDIS, "Redis store", () => {
  const prefix = `gatehouse-test-${randomSuffix()}:`
  // Lazy: a skipped suite still runs this body, and must not open a connection that retries forever.
  const client = new Redis(REDIS_URL, { lazyConnect: true })
  const other = new Redis(REDIS_URL, { lazyConnect: true })

  afterAll(async () => {
    const keys = await client.keys(`${prefix}*`)
    if (keys.length > 0) await client.del(...keys)
    await Promise.all([client.quit(), other.quit()])
  })

  runStoreContract("redis", async () => ({
    store: RedisStore(client, { prefix: `${prefix}kv:` }),
    sibling: RedisStore(other, { prefix: `${prefix}kv:` }),
    remainingMs: (key) => client.pttl(`${prefix}kv:${key}`),
  }))

  it("loads its script again after SCRIPT FLUSH", async () => {
    const store = RedisStore(client, { prefix: `${prefix}flush:` })
    await client.script("FLUSH")
    await expect(store.setMax("k", 3, 60)).resolves.toBe(3)
    await expect(store.setMax("k", 2, 60)).resolves.toBe(3)
  })

  it("is the Redis adapter's store, under the adapter's prefix", async () => {
    const adapter = RedisAdapter(client, { prefix: `${prefix}app:` })
    await adapter.store.set("watermark", "1", 60)
    await expect(client.get(`${prefix}app:kv:watermark`)).resolves.toBe("1")
    const ttl = await client.pttl(`${prefix}app:kv:watermark`)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(60_000)
  })
})
