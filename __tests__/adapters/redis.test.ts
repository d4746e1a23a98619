// The Redis adapter passes the contract under its own key prefix; keys carry the prefix and expiring records a TTL.
import { createHash } from "node:crypto"
import Redis from "ioredis"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import RedisAdapterDefault from "../../lib/storage/redis/adapter"
import { runAdapterContract } from "./contract"
import { seedEverything } from "./deletion"
import { REDIS, REDIS_URL, describeWithService, randomSuffix } from "./services"

async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = []
  let cursor = "0"
  do {
    const [next, batch] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
    keys.push(...batch)
    cursor = next
  } while (cursor !== "0")
  return keys.sort()
}

describeWithService(REDIS, "Redis adapter", () => {
  const prefix = `gatehouse-test-${randomSuffix()}:`
  // Lazy: a skipped suite still runs this body, and must not open a connection that retries forever.
  const client = new Redis(REDIS_URL, { lazyConnect: true })

  afterAll(async () => {
    const keys = await keysUnder(client, prefix)
    if (keys.length > 0) await client.del(...keys)
    await client.quit()
  })

  runAdapterContract(
    "redis",
    async () => ({ adapter: RedisAdapter(client, { prefix: `${prefix}contract:` }), teardown: async () => undefined }),
    { expiresByTTL: true },
  )

  it("is the default export too", () => {
    expect(RedisAdapterDefault).toBe(RedisAdapter)
  })

  it("writes every key under the prefix, with the documented names", async () => {
    const p = `${prefix}names:`
    const adapter = RedisAdapter(client, { prefix: p })
    await adapter.createUser({ id: "u1", email: "Ann@Example.com", emailVerified: null })
    await adapter.linkAccount({ userId: "u1", type: "oauth", provider: "github", providerAccountId: "42" })
    await adapter.createSession({ sessionToken: "s1", userId: "u1", expires: new Date(Date.now() + 60_000) })
    await adapter.createVerificationToken({
      identifier: "ann@example.com",
      token: "t1",
      expires: new Date(Date.now() + 60_000),
    })
    await adapter.createAuthenticator({
      userId: "u1",
      providerAccountId: "pk",
      counter: 0,
      credentialBackedUp: false,
      credentialID: "cred1",
      credentialPublicKey: "pub",
      transports: null,
      credentialDeviceType: "singleDevice",
    })
    expect(await keysUnder(client, p)).toEqual(
      [
        "account:github:42",
        "authenticator:cred1",
        "email:ann@example.com",
        "session:s1",
        "user-accounts:u1",
        "user-authenticators:u1",
        "user-sessions:u1",
        "user:u1",
        "users-by-email",
        "vt-email:ann@example.com",
        "vt:ann%40example.com:t1",
      ]
        .map((k) => p + k)
        .sort(),
    )
    expect(await client.get(`${p}email:ann@example.com`)).toBe("u1")
  })

  it("OIDC sessions are indexed under the hashed OP session id and subject, never the raw values", async () => {
    const p = `${prefix}idp:`
    const adapter = RedisAdapter(client, { prefix: p })
    await adapter.createUser({ id: "u1", email: null, emailVerified: null })
    const expires = new Date(Date.now() + 60_000)
    await adapter.createSession({
      sessionToken: "s1",
      userId: "u1",
      expires,
      provider: "corp",
      idpSid: "S1",
      idpSub: "alice",
    })
    const hex = (v: string) => createHash("sha256").update(v).digest("hex")
    const keys = await keysUnder(client, p)
    expect(keys).toEqual(
      [
        `idp-sid:corp:${hex("S1")}`,
        `idp-sub:corp:${hex("alice")}`,
        "session:s1",
        "user-sessions:u1",
        "user:u1",
        "users-by-email",
      ]
        .map((k) => p + k)
        .sort(),
    )
    expect(keys.join(" ")).not.toMatch(/S1|alice/)
    expect(await client.smembers(`${p}idp-sid:corp:${hex("S1")}`)).toEqual([`${p}session:s1`])
    expect((await adapter.deleteSessionsByIdp({ provider: "corp", idpSid: "S1" })).map((s) => s.sessionToken)).toEqual([
      "s1",
    ])
    expect(await keysUnder(client, p)).toEqual([
      `${p}idp-sub:corp:${hex("alice")}`,
      `${p}user:u1`,
      `${p}users-by-email`,
    ])
    // The other index's stale member is pruned the next time that index is written.
    await adapter.createSession({ sessionToken: "s2", userId: "u1", expires, provider: "corp", idpSub: "alice" })
    expect(await client.smembers(`${p}idp-sub:corp:${hex("alice")}`)).toEqual([`${p}session:s2`])
  })

  it("sessions and verification tokens expire at their `expires`; users and accounts do not", async () => {
    const p = `${prefix}ttl:`
    const adapter = RedisAdapter(client, { prefix: p })
    const expires = new Date(Date.now() + 10 * 60_000)
    await adapter.createUser({ id: "u1", email: "ttl@example.com", emailVerified: null })
    await adapter.linkAccount({ userId: "u1", type: "oauth", provider: "github", providerAccountId: "1" })
    await adapter.createSession({ sessionToken: "s1", userId: "u1", expires })
    await adapter.createVerificationToken({ identifier: "ttl@example.com", token: "t1", expires })
    expect(await client.pexpiretime(`${p}session:s1`)).toBe(expires.getTime())
    expect(await client.pexpiretime(`${p}vt:ttl%40example.com:t1`)).toBe(expires.getTime())
    // The address's token index lives as long as its longest-lived token (PEXPIRE is relative: a few ms of slack).
    const indexExpiry = await client.pexpiretime(`${p}vt-email:ttl@example.com`)
    expect(Math.abs(indexExpiry - expires.getTime())).toBeLessThan(1_000)
    expect(await client.pttl(`${p}user:u1`)).toBe(-1)
    expect(await client.pttl(`${p}account:github:1`)).toBe(-1)
  })

  it("updateSession moves the TTL to the new expiry, and keeps it when no expiry is given", async () => {
    const p = `${prefix}ttl-update:`
    const adapter = RedisAdapter(client, { prefix: p })
    await adapter.createUser({ id: "u1", email: "ttl2@example.com", emailVerified: null })
    await adapter.createSession({ sessionToken: "s1", userId: "u1", expires: new Date(Date.now() + 60_000) })
    const later = new Date(Date.now() + 3_600_000)
    await adapter.updateSession({ sessionToken: "s1", expires: later })
    expect(await client.pexpiretime(`${p}session:s1`)).toBe(later.getTime())
    await adapter.updateSession({ sessionToken: "s1" })
    expect(await client.pexpiretime(`${p}session:s1`)).toBe(later.getTime())
  })

  it("deleteUser leaves no key of the user behind", async () => {
    const p = `${prefix}cascade:`
    const adapter = RedisAdapter(client, { prefix: p })
    await adapter.createUser({ id: "u1", email: "gone@example.com", emailVerified: null })
    await adapter.linkAccount({ userId: "u1", type: "oauth", provider: "github", providerAccountId: "1" })
    await adapter.createSession({ sessionToken: "s1", userId: "u1", expires: new Date(Date.now() + 60_000) })
    await adapter.createAuthenticator({
      userId: "u1",
      providerAccountId: "pk",
      counter: 0,
      credentialBackedUp: false,
      credentialID: "cred1",
      credentialPublicKey: "pub",
      transports: null,
      credentialDeviceType: "singleDevice",
    })
    await adapter.deleteUser("u1")
    expect(await keysUnder(client, p)).toEqual([])
  })

  it("deleteUser (accounts.md §6.3) leaves no key of the user: two-factor, password, impersonation session, every token of the address", async () => {
    const p = `${prefix}cascade-all:`
    const adapter = RedisAdapter(client, { prefix: p })
    await seedEverything(adapter, "u1", "Gone@Example.com")
    const before = await keysUnder(client, p)
    await seedEverything(adapter, "u2", "kept@example.com")
    const others = (await keysUnder(client, p)).filter((k) => !before.includes(k))
    expect(others.filter((k) => k.startsWith(`${p}vt:`))).toHaveLength(4)
    await adapter.deleteUser("u1")
    // The listing set is shared: it stays, with only the other user's member.
    expect(await keysUnder(client, p)).toEqual([...others, `${p}users-by-email`].sort())
    expect(await client.zrange(`${p}users-by-email`, 0, -1)).toEqual(["kept@example.com\u0000u2"])
  })

  it("deleteUser also takes the user's sessions out of the back-channel logout indexes, leaving no index of theirs", async () => {
    const p = `${prefix}cascade-idp:`
    const adapter = RedisAdapter(client, { prefix: p })
    const expires = new Date(Date.now() + 60_000)
    await adapter.createUser({ id: "u1", email: "idp-gone@example.com", emailVerified: null })
    await adapter.createUser({ id: "u2", email: "idp-kept@example.com", emailVerified: null })
    await adapter.createSession({
      sessionToken: "s1",
      userId: "u1",
      expires,
      provider: "corp",
      idpSid: "S1",
      idpSub: "alice",
    })
    await adapter.createSession({
      sessionToken: "s2",
      userId: "u2",
      expires,
      provider: "corp",
      idpSid: "S2",
      idpSub: "bob",
    })
    await adapter.deleteUser("u1")
    const hex = (v: string) => createHash("sha256").update(v).digest("hex")
    const keys = await keysUnder(client, p)
    expect(keys.filter((k) => k.startsWith(`${p}idp-`))).toEqual(
      [`${p}idp-sid:corp:${hex("S2")}`, `${p}idp-sub:corp:${hex("bob")}`].sort(),
    )
    expect(await client.smembers(`${p}idp-sub:corp:${hex("bob")}`)).toEqual([`${p}session:s2`])
  })

  it("listUsers walks the users-by-email sorted set (no SCAN once it is complete); writes keep it in step", async () => {
    const p = `${prefix}directory:`
    const adapter = RedisAdapter(client, { prefix: p })
    const set = `${p}users-by-email`
    await adapter.createUser({ id: "u1", email: "B@example.com", emailVerified: null })
    await adapter.createUser({ id: "u2", email: "a@example.com", emailVerified: null })
    await adapter.createUser({ id: "u3", email: null, emailVerified: null })
    expect(await client.zrangeBuffer(set, 0, -1)).toEqual([
      Buffer.from("a@example.com\u0000u2"),
      Buffer.from("b@example.com\u0000u1"),
      Buffer.concat([Buffer.from([0xff, 0]), Buffer.from("u3")]),
    ])
    await adapter.listUsers({ limit: 1 })
    const scan = jest.spyOn(client, "scan")
    try {
      await adapter.updateUser({ id: "u1", email: "c@example.com" })
      await adapter.deleteUser("u2")
      expect(await client.zrange(set, 0, 1)).toEqual(["c@example.com\u0000u1", "\ufffd\u0000u3"])
      // A member whose user is gone or has another address (a crash between cluster steps) is skipped.
      await client.zadd(set, 0, "a@example.com\u0000ghost", 0, "b@example.com\u0000u1")
      const page = await adapter.listUsers({ limit: 1 })
      expect(page.map((u) => u.id)).toEqual(["u1"])
      const next = await adapter.listUsers({ limit: 5, after: { emailKey: "c@example.com", id: "u1" } })
      expect(next.map((u) => u.id)).toEqual(["u3"])
      expect((await adapter.listUsers({ emailPrefix: "c@", limit: 5 })).map((u) => u.id)).toEqual(["u1"])
      expect((await adapter.listUsers({ emailPrefix: "zz", id: "u3", limit: 5 })).map((u) => u.id)).toEqual(["u3"])
      expect(scan).not.toHaveBeenCalled()
    } finally {
      scan.mockRestore()
    }
  })

  it("data written before the users-by-email set: the first listUsers adds every stored user, then marks it done", async () => {
    const p = `${prefix}directory-backfill:`
    const adapter = RedisAdapter(client, { prefix: p })
    for (const [id, email] of [
      ["u1", "z@example.com"],
      ["u2", "y@example.com"],
      ["u3", null],
    ] as const) {
      await adapter.createUser({ id, email, emailVerified: null })
    }
    // As an earlier version left it: the records without the set or its mark.
    await client.del(`${p}users-by-email`, `${p}users-by-email:ready`)
    const fresh = RedisAdapter(client, { prefix: p })
    expect((await fresh.listUsers({ limit: 10 })).map((u) => u.id)).toEqual(["u2", "u1", "u3"])
    expect(await client.zcard(`${p}users-by-email`)).toBe(3)
    expect(await client.get(`${p}users-by-email:ready`)).toBe("1")
    const scan = jest.spyOn(client, "scan")
    try {
      expect((await RedisAdapter(client, { prefix: p }).listUsers({ limit: 10 })).map((u) => u.id)).toHaveLength(3)
      expect(scan).not.toHaveBeenCalled()
    } finally {
      scan.mockRestore()
    }
  })

  it("two adapters with different prefixes do not see each other's data", async () => {
    const a = RedisAdapter(client, { prefix: `${prefix}a:` })
    const b = RedisAdapter(client, { prefix: `${prefix}b:` })
    await a.createUser({ id: "u1", email: "iso@example.com", emailVerified: null })
    await expect(b.getUser("u1")).resolves.toBeNull()
    await expect(b.getUserByEmail("iso@example.com")).resolves.toBeNull()
  })

  it("works after the server forgot its script cache (NOSCRIPT fallback)", async () => {
    const adapter = RedisAdapter(client, { prefix: `${prefix}noscript:` })
    // SCRIPT FLUSH would hit every user of the shared server, so the server's answer is simulated instead.
    const spy = jest.spyOn(client, "evalsha").mockRejectedValue(new Error("NOSCRIPT No matching script."))
    try {
      await adapter.createUser({ id: "u1", email: "ns@example.com", emailVerified: null })
      expect((await adapter.getUserByEmail("NS@example.com"))?.id).toBe("u1")
      expect(spy).toHaveBeenCalledTimes(2)
    } finally {
      spy.mockRestore()
    }
  })
})
