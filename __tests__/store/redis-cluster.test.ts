// The Redis store on a real Redis Cluster (3 masters + 3 replicas) through ioredis `Cluster` clients: the contract
// passes with keys spread over every master. (The adapter on a cluster: __tests__/adapters/redis-cluster.test.ts.)
import { Cluster } from "ioredis"
import { RedisStore } from "../../lib/storage/redis/store"
import { REDIS_CLUSTER, REDIS_CLUSTER_URL, describeWithService, randomSuffix } from "../adapters/services"
import { runStoreContract } from "./contract"

describeWithService(REDIS_CLUSTER, "Redis store on a Redis Cluster", () => {
  const prefix = `gatehouse-test-${randomSuffix()}:`
  const seed = new URL(REDIS_CLUSTER_URL)
  const nodes = [{ host: seed.hostname, port: Number(seed.port || 7001) }]
  // Lazy: a skipped suite still runs this body, and must not open connections that retry forever.
  const client = new Cluster(nodes, { lazyConnect: true })
  const other = new Cluster(nodes, { lazyConnect: true })

  afterAll(async () => {
    await Promise.all(
      client.nodes("master").map(async (node) => {
        const keys = await node.keys(`${prefix}*`)
        if (keys.length > 0) await Promise.all(keys.map((key) => node.del(key)))
      }),
    )
    await Promise.all([client.quit(), other.quit()])
  })

  runStoreContract("redis cluster", async () => ({
    store: RedisStore(client, { prefix: `${prefix}kv:` }),
    sibling: RedisStore(other, { prefix: `${prefix}kv:` }),
    remainingMs: (key) => client.pttl(`${prefix}kv:${key}`),
  }))

  it("spreads the keys over the masters, and get() of keys on several of them answers in order", async () => {
    const store = RedisStore(client, { prefix: `${prefix}spread:` })
    const keys = Array.from({ length: 12 }, (_, i) => `key-${i}`)
    for (const key of keys) await store.set(key, `value-${key}`, 60)
    const holders = await Promise.all(
      client.nodes("master").map(async (node) => (await node.keys(`${prefix}spread:*`)).length),
    )
    expect(holders.filter((count) => count > 0).length).toBeGreaterThan(1)
    await expect(store.get([...keys, "absent"])).resolves.toEqual([...keys.map((key) => `value-${key}`), null])
  })
})
