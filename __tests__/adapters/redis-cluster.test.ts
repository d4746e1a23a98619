// The Redis adapter on a real Redis Cluster (3 masters + 3 replicas) through an ioredis `Cluster`: the contract passes
// in the cluster layout, a user's keys share one slot, and the steps of the two-entity operations are ordered so that
// what a crash between them leaves grants nothing and hides no session from revocation.
import { Cluster } from "ioredis"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import { runAdapterContract } from "./contract"
import { seedEverything } from "./deletion"
import { REDIS_CLUSTER, REDIS_CLUSTER_URL, describeWithService, randomSuffix } from "./services"

describeWithService(REDIS_CLUSTER, "Redis adapter on a Redis Cluster", () => {
  const prefix = `gatehouse-test-${randomSuffix()}:`
  const seed = new URL(REDIS_CLUSTER_URL)
  // Lazy: a skipped suite still runs this body, and must not open connections that retry forever.
  const client = new Cluster([{ host: seed.hostname, port: Number(seed.port || 7001) }], { lazyConnect: true })
  const expires = () => new Date(Date.now() + 60_000)

  afterAll(async () => {
    await Promise.all(
      client.nodes("master").map(async (node) => {
        const keys = await node.keys(`${prefix}*`)
        if (keys.length > 0) await Promise.all(keys.map((key) => node.del(key)))
      }),
    )
    await client.quit()
  })

  runAdapterContract(
    "redis cluster",
    async () => ({ adapter: RedisAdapter(client, { prefix: `${prefix}contract:` }), teardown: async () => undefined }),
    { expiresByTTL: true },
  )

  it("a user's record and sets share one slot; sessions, accounts and emails spread over the masters", async () => {
    const p = `${prefix}slots:`
    const adapter = RedisAdapter(client, { prefix: p })
    for (let i = 0; i < 6; i++) {
      await adapter.createUser({ id: `u${i}`, email: `u${i}@example.com`, emailVerified: null })
      await adapter.linkAccount({ userId: `u${i}`, type: "oauth", provider: "github", providerAccountId: `${i}` })
      await adapter.createSession({ sessionToken: `s${i}`, userId: `u${i}`, expires: expires() })
    }
    const slot = (name: string) => client.cluster("KEYSLOT", name) as Promise<number>
    const own = await Promise.all(
      [`user:{u0}`, `user-accounts:{u0}`, `user-sessions:{u0}`, `user-authenticators:{u0}`].map((k) => slot(p + k)),
    )
    expect(new Set(own).size).toBe(1)
    const sessionSlots = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => slot(`${p}session:s${i}`)))
    expect(new Set(sessionSlots).size).toBeGreaterThan(1)
    expect(await client.zrange(`${p}user-sessions:{u0}`, 0, -1)).toEqual([`${p}session:s0`])
  })

  it("deleteUser (accounts.md §6.3) leaves no key of the user on any master, another user's intact", async () => {
    const p = `${prefix}delete-all:`
    const adapter = RedisAdapter(client, { prefix: p })
    const keys = async () => (await Promise.all(client.nodes("master").map((node) => node.keys(`${p}*`)))).flat().sort()
    const oidc = (id: string) =>
      adapter.createSession({
        sessionToken: `oidc-${id}`,
        userId: id,
        expires: expires(),
        provider: "corp",
        idpSid: `sid-${id}`,
        idpSub: `sub-${id}`,
      })
    await seedEverything(adapter, "u1", "Gone@Example.com")
    await oidc("u1")
    const before = await keys()
    await seedEverything(adapter, "u2", "kept@example.com")
    await oidc("u2")
    const others = (await keys()).filter((k) => !before.includes(k))
    expect(others.filter((k) => k.startsWith(`${p}vt:`))).toHaveLength(4)
    await adapter.deleteUser("u1")
    // The listing set is shared: it stays, with only the other user's member.
    expect(await keys()).toEqual([...others, `${p}users-by-email`].sort())
    expect(await client.zrange(`${p}users-by-email`, 0, -1)).toEqual(["kept@example.com\u0000u2"])
  })

  it("listUsers on the cluster: users-by-email kept by the ordered steps, and filled from every master for older data", async () => {
    const p = `${prefix}directory:`
    const adapter = RedisAdapter(client, { prefix: p })
    for (let i = 0; i < 6; i++)
      await adapter.createUser({ id: `u${i}`, email: `u${5 - i}@example.com`, emailVerified: null })
    await adapter.updateUser({ id: "u0", email: "a@example.com" })
    await adapter.deleteUser("u1")
    const ids = async (a: typeof adapter) => (await a.listUsers({ limit: 10 })).map((u) => u.id)
    expect(await ids(adapter)).toEqual(["u0", "u5", "u4", "u3", "u2"])
    expect(await client.zcard(`${p}users-by-email`)).toBe(5)
    await client.del(`${p}users-by-email`)
    await client.del(`${p}users-by-email:ready`)
    expect(await ids(RedisAdapter(client, { prefix: p }))).toEqual(["u0", "u5", "u4", "u3", "u2"])
    expect(await client.zcard(`${p}users-by-email`)).toBe(5)
  })

  it("a session listed in its user's set but never written (a crash after the first step) grants nothing and is found by revocation", async () => {
    const p = `${prefix}crash-session:`
    const adapter = RedisAdapter(client, { prefix: p })
    await adapter.createUser({ id: "u1", email: null, emailVerified: null })
    // The first step of createSession alone: the member, no record.
    await client.zadd(`${p}user-sessions:{u1}`, Date.now() + 60_000, `${p}session:half`)
    await expect(adapter.getSessionAndUser("half")).resolves.toBeNull()
    await expect(adapter.listSessionsByUserId("u1")).resolves.toEqual([])
    // Written late (the second step after all): revocation of the user's sessions still finds and deletes it.
    await client.set(`${p}session:half`, JSON.stringify({ sessionToken: "half", userId: "u1", expires: expires() }))
    await expect(adapter.deleteSessions({ userId: "u1" })).resolves.toBe(1)
    await expect(adapter.getSessionAndUser("half")).resolves.toBeNull()
  })

  it("a session whose user is gone (a crash inside deleteUser) grants nothing", async () => {
    const p = `${prefix}crash-user:`
    const adapter = RedisAdapter(client, { prefix: p })
    await adapter.createUser({ id: "u1", email: "gone@example.com", emailVerified: null })
    await adapter.createSession({ sessionToken: "s1", userId: "u1", expires: expires() })
    await client.del(`${p}user:{u1}`)
    await expect(adapter.getSessionAndUser("s1")).resolves.toBeNull()
    // The email claim the user left behind is taken over by a new user with that address.
    await adapter.createUser({ id: "u2", email: "gone@example.com", emailVerified: null })
    await expect(adapter.getUserByEmail("GONE@example.com")).resolves.toMatchObject({ id: "u2" })
  })

  it("an account left by a deleted user (a crash inside deleteUser) does not block linking it again", async () => {
    const p = `${prefix}crash-account:`
    const adapter = RedisAdapter(client, { prefix: p })
    await client.set(
      `${p}account:github:7`,
      JSON.stringify({ userId: "ghost", type: "oauth", provider: "github", providerAccountId: "7" }),
    )
    await expect(adapter.getUserByAccount({ provider: "github", providerAccountId: "7" })).resolves.toBeNull()
    await adapter.createUser({ id: "u1", email: null, emailVerified: null })
    await adapter.linkAccount({ userId: "u1", type: "oauth", provider: "github", providerAccountId: "7" })
    await expect(adapter.getUserByAccount({ provider: "github", providerAccountId: "7" })).resolves.toMatchObject({
      id: "u1",
    })
  })

  it("an old email index (a crash inside updateUser) names no one", async () => {
    const p = `${prefix}crash-email:`
    const adapter = RedisAdapter(client, { prefix: p })
    await adapter.createUser({ id: "u1", email: "new@example.com", emailVerified: null })
    await client.set(`${p}email:old@example.com`, "u1")
    await expect(adapter.getUserByEmail("old@example.com")).resolves.toBeNull()
    await expect(adapter.getUserByEmail("new@example.com")).resolves.toMatchObject({ id: "u1" })
  })

  it("waitForReplicas: a write one replica confirms is acknowledged; one that more replicas than exist must confirm fails NOREPLICAS", async () => {
    const p = `${prefix}wait:`
    const one = RedisAdapter(client, { prefix: p, waitForReplicas: { replicas: 1, timeoutMs: 1000 } })
    await one.createUser({ id: "u1", email: null, emailVerified: null })
    await expect(one.createSession({ sessionToken: "s1", userId: "u1", expires: expires() })).resolves.toMatchObject({
      sessionToken: "s1",
    })
    await expect(one.store.consume("once", 60)).resolves.toBe(true)
    const two = RedisAdapter(client, { prefix: p, waitForReplicas: { replicas: 2, timeoutMs: 50 } })
    await expect(two.deleteSession("s1")).rejects.toMatchObject({ code: "NOREPLICAS" })
    await expect(two.store.set("k", "v", 60)).rejects.toMatchObject({ code: "NOREPLICAS" })
    expect(() => RedisAdapter(client, { prefix: p, waitForReplicas: { replicas: 0 } })).toThrow(TypeError)
  })
})
