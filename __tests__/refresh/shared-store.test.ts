// D3 and D9 across instances: two Gatehouse instances (own runtimes, own pools and Redis clients, as two processes
// would have) share one PostgreSQL database and one Redis store, or one Redis holding both the adapter's records and
// the store; a refresh token is redeemed once in total, and the account row is written by compare-and-swap.
import Redis from "ioredis"
import { Pool } from "pg"
import { migrate, PostgresAdapter } from "../../lib/storage/postgres/adapter"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import { RedisStore } from "../../lib/storage/redis/store"
import { Gatehouse, type WebGatehouse } from "../../lib/web/gatehouse"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { DATABASE_URL, POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { accessToken, Browser, SECRET, signIn, startRefreshOp, type RefreshOp } from "./harness"

describeWithService(POSTGRES, "refresh across instances (PostgreSQL adapter)", () => {
  describeWithService(REDIS, "with a Redis store", () => {
    const schema = `refresh_${randomSuffix()}`
    const prefix = `gatehouse-refresh-${randomSuffix()}:`
    const pools: Pool[] = []
    const clients: Redis[] = []
    let rop: RefreshOp
    let one: WebGatehouse
    let two: WebGatehouse
    let adapter: ReturnType<typeof PostgresAdapter>

    /** One "process": its own pool, Redis client, adapter, store and Gatehouse runtime. */
    function instance(strategy: "database" | "jwt"): { gh: WebGatehouse; adapter: ReturnType<typeof PostgresAdapter> } {
      const pool = new Pool({ connectionString: DATABASE_URL, max: 4 })
      const client = new Redis(REDIS_URL)
      pools.push(pool)
      clients.push(client)
      const own = PostgresAdapter(pool, { schema })
      const config: AuthConfig = {
        secret: SECRET,
        trustHost: true,
        adapter: own,
        store: RedisStore(client, { prefix }),
        session: { strategy },
        logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
        providers: [rop.provider()],
      }
      return { gh: Gatehouse(config), adapter: own }
    }

    beforeAll(async () => {
      rop = await startRefreshOp()
      const pool = new Pool({ connectionString: DATABASE_URL, max: 2 })
      pools.push(pool)
      await migrate(pool, { schema })
    })
    afterAll(async () => {
      await rop.close()
      const keys = await clients[0]?.keys(`${prefix}*`)
      if (keys?.length) await clients[0].del(...keys)
      await pools[0].query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await Promise.all(pools.map((p) => p.end()))
      await Promise.all(clients.map((c) => c.quit()))
    })

    beforeEach(() => {
      rop.tap.mode = { kind: "pass" }
    })

    it("D3: 25 concurrent calls in each of two instances (database sessions) → one grant, 50 identical ATs", async () => {
      const first = instance("database")
      one = first.gh
      adapter = first.adapter
      two = instance("database").gh
      const browser = new Browser()
      await signIn(one, browser, `d3-${randomSuffix()}`)
      const login = (await pools[1].query(`SELECT provider_account_id FROM "${schema}".accounts`)).rows[0]
        .provider_account_id as string
      const key = { provider: "op", providerAccountId: login }
      await adapter.updateAccountTokens(key, { expires_at: Math.floor(Date.now() / 1000) + 30 })
      rop.tap.calls = 0
      const calls = [
        ...Array.from({ length: 25 }, () => accessToken(one, browser.copy())),
        ...Array.from({ length: 25 }, () => accessToken(two, browser.copy())),
      ]
      const results = await Promise.all(calls)
      expect(results.filter((r) => r.error !== undefined)).toEqual([])
      expect(rop.tap.calls).toBe(1)
      const tokens = new Set(results.map((r) => r.value?.accessToken))
      expect(tokens.size).toBe(1)
      expect([...tokens][0]).toBe((await adapter.getAccount(login, "op"))?.access_token)
    }, 30_000)

    it("D9: two writers with the same old RT in PostgreSQL → exactly one row update", async () => {
      const { rows } = await pools[1].query(`SELECT provider_account_id, refresh_token FROM "${schema}".accounts`)
      const { provider_account_id: id, refresh_token: old } = rows[0] as Record<string, string>
      const key = { provider: "op", providerAccountId: id }
      const other = instance("database").adapter
      const [a, b] = await Promise.all([
        adapter.updateAccountTokens(key, { access_token: "a", refresh_token: "rt-a" }, { expectedRefreshToken: old }),
        other.updateAccountTokens(key, { access_token: "b", refresh_token: "rt-b" }, { expectedRefreshToken: old }),
      ])
      const winners = [a, b].filter((r) => r !== null)
      expect(winners).toHaveLength(1)
      expect((await adapter.getAccount(id, "op"))?.access_token).toBe(winners[0]?.access_token)
      // A stale expectation changes nothing; `null` matches a row without a refresh token.
      await expect(
        adapter.updateAccountTokens(key, { access_token: "c" }, { expectedRefreshToken: old }),
      ).resolves.toBeNull()
      await expect(
        adapter.updateAccountTokens(key, { access_token: "c" }, { expectedRefreshToken: null }),
      ).resolves.toBeNull()
      await adapter.updateAccountTokens(key, { refresh_token: null })
      const cleared = await adapter.updateAccountTokens(key, { access_token: "d" }, { expectedRefreshToken: null })
      expect(cleared?.access_token).toBe("d")
      expect(cleared?.refresh_token).toBeUndefined()
    })

    it("D3 (JWT sessions): the same cookie in two instances → one grant; both re-issue the successor", async () => {
      const a = instance("jwt").gh
      const b = instance("jwt").gh
      const browser = new Browser()
      await signIn(a, browser, `d3j-${randomSuffix()}`)
      rop.tap.calls = 0
      const results = await Promise.all([
        ...Array.from({ length: 10 }, () => accessToken(a, browser.copy(), { force: true })),
        ...Array.from({ length: 10 }, () => accessToken(b, browser.copy(), { force: true })),
      ])
      expect(results.filter((r) => r.error !== undefined)).toEqual([])
      expect(rop.tap.calls).toBe(1)
      expect(new Set(results.map((r) => r.value?.accessToken)).size).toBe(1)
      expect(results.every((r) => r.setCookies.some((c) => c.startsWith("authjs.session-token=")))).toBe(true)
    }, 30_000)
  })
})

describeWithService(REDIS, "refresh across instances (Redis adapter and store)", () => {
  const prefix = `gatehouse-refresh-redis-${randomSuffix()}:`
  const clients: Redis[] = []
  let rop: RefreshOp
  /** What the instances asked of the adapter since the last reset. */
  const asked = { link: 0, unlink: 0, cas: 0, casWon: 0 }

  /** One "process": its own Redis client and adapter (same prefix: records and store shared), its own runtime. */
  function instance(): { gh: WebGatehouse; adapter: ReturnType<typeof RedisAdapter> } {
    const client = new Redis(REDIS_URL)
    clients.push(client)
    const own = RedisAdapter(client, { prefix })
    // Counts the calls and passes them on to the real adapter.
    const counted: ReturnType<typeof RedisAdapter> = {
      ...own,
      async linkAccount(account) {
        asked.link++
        return own.linkAccount(account)
      },
      async unlinkAccount(account) {
        asked.unlink++
        return own.unlinkAccount(account)
      },
      async updateAccountTokens(key, patch, options) {
        if (options?.expectedRefreshToken !== undefined) asked.cas++
        const updated = await own.updateAccountTokens(key, patch, options)
        if (updated && options?.expectedRefreshToken !== undefined) asked.casWon++
        return updated
      },
    }
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: counted,
      session: { strategy: "database" },
      logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
      providers: [rop.provider()],
    }
    return { gh: Gatehouse(config), adapter: own }
  }

  beforeAll(async () => {
    rop = await startRefreshOp()
  })
  afterAll(async () => {
    await rop.close()
    const keys = await clients[0]?.keys(`${prefix}*`)
    if (keys?.length) await clients[0].del(...keys)
    await Promise.all(clients.map((c) => c.quit()))
  })

  it("D3: 25 concurrent calls in each of two instances → one grant, one compare-and-swap, no unlink + link", async () => {
    const first = instance()
    const second = instance()
    const browser = new Browser()
    await signIn(first.gh, browser, `d3r-${randomSuffix()}`)
    const client = clients[0]
    const accountKeys = await client.keys(`${prefix}account:op:*`)
    expect(accountKeys).toHaveLength(1)
    const login = decodeURIComponent(accountKeys[0].slice(`${prefix}account:op:`.length))
    const before = await first.adapter.getAccount(login, "op")
    expect(before?.refresh_token).toEqual(expect.any(String))
    await first.adapter.updateAccountTokens(
      { provider: "op", providerAccountId: login },
      { expires_at: Math.floor(Date.now() / 1000) + 30 },
    )
    rop.tap.calls = 0
    Object.assign(asked, { link: 0, unlink: 0, cas: 0, casWon: 0 })

    const results = await Promise.all([
      ...Array.from({ length: 25 }, () => accessToken(first.gh, browser.copy())),
      ...Array.from({ length: 25 }, () => accessToken(second.gh, browser.copy())),
    ])
    expect(results.filter((r) => r.error !== undefined)).toEqual([])
    expect(rop.tap.calls).toBe(1)
    const tokens = new Set(results.map((r) => r.value?.accessToken))
    expect(tokens.size).toBe(1)

    // The rotation went through the compare-and-swap: one conditional write that won, no unlink and no link.
    expect(asked).toEqual({ link: 0, unlink: 0, cas: 1, casWon: 1 })
    // Still one account record, in its user's set, holding the rotated tokens.
    expect(await client.keys(`${prefix}account:op:*`)).toEqual(accountKeys)
    const after = await second.adapter.getAccount(login, "op")
    expect(after?.access_token).toBe([...tokens][0])
    expect(after?.refresh_token).toEqual(expect.any(String))
    expect(after?.refresh_token).not.toBe(before?.refresh_token)
    expect(after?.expires_at).toBeGreaterThan(Math.floor(Date.now() / 1000) + 60)
    expect(await client.smembers(`${prefix}user-accounts:${before?.userId}`)).toEqual(accountKeys)
    expect(await client.pttl(accountKeys[0])).toBe(-1)
  }, 30_000)
})
