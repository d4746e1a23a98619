// `updateAccountTokens` (next-wave D.1 step 6) on every shipped adapter: a patch of the token columns, and the
// compare-and-swap on the stored refresh token that lets exactly one of two rotations win (D9). The same cases run on
// memory, SQLite, PostgreSQL and Redis, so the four answer alike; Redis adds its read-then-swap interleavings.
import BetterSqlite3 from "better-sqlite3"
import Redis, { type RedisKey } from "ioredis"
import { Pool } from "pg"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { migrate, PostgresAdapter } from "../../lib/storage/postgres/adapter"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import type { AccountTokenAdapter, Adapter } from "../../lib/storage/adapter"
import { aUser, anAccount } from "../adapters/contract/fixtures"
import { DATABASE_URL, POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"

type Subject = Required<Adapter> & AccountTokenAdapter
type Key = { provider: string; providerAccountId: string }

/** Links a fresh user's account (every token field set, refresh token `ghr_refresh`) and answers its key. */
async function linked(adapter: Subject, overrides: Parameters<typeof anAccount>[1] = {}): Promise<Key> {
  const user = await adapter.createUser(aUser())
  const account = anAccount(user.id, overrides)
  await adapter.linkAccount(account)
  return { provider: account.provider, providerAccountId: account.providerAccountId }
}

function accountTokenCases(make: () => Subject): void {
  let adapter: Subject
  let key: Key

  beforeEach(async () => {
    adapter = make()
    key = await linked(adapter)
  })

  it("writes only the named columns; null clears one", async () => {
    const updated = await adapter.updateAccountTokens(key, { access_token: "new-at", expires_at: 42, scope: null })
    expect(updated).toMatchObject({ access_token: "new-at", expires_at: 42, refresh_token: "ghr_refresh" })
    expect(updated?.scope).toBeUndefined()
    const row = await adapter.getAccount(key.providerAccountId, key.provider)
    expect(row).toMatchObject({
      access_token: "new-at",
      expires_at: 42,
      token_type: "bearer",
      id_token: expect.any(String),
    })
    expect(row?.scope).toBeUndefined()
    expect(row).toEqual(updated)
  })

  it("dpop_key round-trips through linkAccount and updateAccountTokens; null clears it", async () => {
    const sealed = "gh1.eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..iv.ciphertext.tag"
    const dpopKey = await linked(adapter, { providerAccountId: "dpop-acct", dpop_key: sealed } as never)
    expect(await adapter.getAccount(dpopKey.providerAccountId, dpopKey.provider)).toMatchObject({ dpop_key: sealed })
    const rotated = `${sealed}-2`
    expect(await adapter.updateAccountTokens(dpopKey, { dpop_key: rotated })).toMatchObject({ dpop_key: rotated })
    expect(await adapter.getAccount(dpopKey.providerAccountId, dpopKey.provider)).toMatchObject({ dpop_key: rotated })
    const cleared = await adapter.updateAccountTokens(dpopKey, { dpop_key: null })
    expect(cleared?.dpop_key).toBeUndefined()
    expect((await adapter.getAccount(dpopKey.providerAccountId, dpopKey.provider))?.dpop_key).toBeUndefined()
  })

  it("a patch writes token columns only: other keys (the owner, the provider) are ignored", async () => {
    const before = await adapter.getAccount(key.providerAccountId, key.provider)
    const patch = { access_token: "only-this", userId: "someone-else", provider: "other", type: "email" }
    const updated = await adapter.updateAccountTokens(key, patch as never)
    expect(updated).toEqual({ ...before, access_token: "only-this" })
    expect(await adapter.getAccount(key.providerAccountId, key.provider)).toEqual(updated)
    expect(await adapter.getAccount(key.providerAccountId, "other")).toBeNull()
  })

  it("two writers expecting the same refresh token: exactly one wins", async () => {
    const results = await Promise.all([
      adapter.updateAccountTokens(
        key,
        { access_token: "a", refresh_token: "rt-a" },
        { expectedRefreshToken: "ghr_refresh" },
      ),
      adapter.updateAccountTokens(
        key,
        { access_token: "b", refresh_token: "rt-b" },
        { expectedRefreshToken: "ghr_refresh" },
      ),
    ])
    const winners = results.filter((r) => r !== null)
    expect(winners).toHaveLength(1)
    const row = await adapter.getAccount(key.providerAccountId, key.provider)
    expect(row?.access_token).toBe(winners[0]?.access_token)
    expect(row?.refresh_token).toBe(winners[0]?.refresh_token)
  })

  it("a stale expectation writes nothing and answers null; null expects a row without a refresh token", async () => {
    await expect(
      adapter.updateAccountTokens(key, { access_token: "x" }, { expectedRefreshToken: "other" }),
    ).resolves.toBeNull()
    await expect(
      adapter.updateAccountTokens(key, { access_token: "x" }, { expectedRefreshToken: null }),
    ).resolves.toBeNull()
    expect((await adapter.getAccount(key.providerAccountId, key.provider))?.access_token).toBe("gho_access")
    await adapter.updateAccountTokens(key, { refresh_token: null })
    const updated = await adapter.updateAccountTokens(key, { access_token: "y" }, { expectedRefreshToken: null })
    expect(updated?.access_token).toBe("y")
    expect(updated?.refresh_token).toBeUndefined()
  })

  it("an unknown account answers null and creates nothing", async () => {
    const nobody = { provider: "github", providerAccountId: `nobody-${randomSuffix()}` }
    await expect(adapter.updateAccountTokens(nobody, { access_token: "z" })).resolves.toBeNull()
    await expect(
      adapter.updateAccountTokens(nobody, { access_token: "z" }, { expectedRefreshToken: null }),
    ).resolves.toBeNull()
    await expect(adapter.getAccount(nobody.providerAccountId, nobody.provider)).resolves.toBeNull()
  })

  it("keeps the owner and the account's extra fields as they were", async () => {
    const extra = { refresh_token_expires_in: 15_897_600, "not-before-policy": 0, session_state: "state-1" }
    const other = await linked(adapter, extra)
    const before = await adapter.getAccount(other.providerAccountId, other.provider)
    await adapter.updateAccountTokens(other, { access_token: "kept" }, { expectedRefreshToken: "ghr_refresh" })
    const after = await adapter.getAccount(other.providerAccountId, other.provider)
    expect(after).toEqual({ ...before, access_token: "kept" })
    expect((await adapter.getUserByAccount(other))?.id).toBe(before?.userId)
  })
}

describe.each([
  ["memory", (): Subject => MemoryAdapter()],
  ["sqlite", (): Subject => SQLiteAdapter(new BetterSqlite3(":memory:"))],
])("%s adapter: updateAccountTokens", (_name, make) => accountTokenCases(make))

describeWithService(POSTGRES, "postgres adapter: updateAccountTokens", () => {
  const schema = `account_tokens_${randomSuffix()}`
  const pool = new Pool({ connectionString: DATABASE_URL, max: 4 })
  beforeAll(() => migrate(pool, { schema }))
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await pool.end()
  })
  accountTokenCases(() => PostgresAdapter(pool, { schema }))
})

describeWithService(REDIS, "redis adapter: updateAccountTokens", () => {
  const prefix = `gatehouse-account-tokens-${randomSuffix()}:`
  const client = new Redis(REDIS_URL, { lazyConnect: true })
  const make = (): Subject => RedisAdapter(client, { prefix })
  afterAll(async () => {
    const keys = await client.keys(`${prefix}*`)
    if (keys.length > 0) await client.del(...keys)
    await client.quit()
  })

  accountTokenCases(make)

  describe("the compare-and-swap", () => {
    let adapter: Subject
    let key: Key
    const accountKey = (k: Key) => `${prefix}account:${encodeURIComponent(k.provider)}:${k.providerAccountId}`

    beforeEach(async () => {
      adapter = make()
      key = await linked(adapter)
    })
    afterEach(() => jest.restoreAllMocks())

    /** Runs `between` once, right after the adapter's next read of the account key (a real write on the server). */
    function afterNextRead(between: () => unknown): void {
      const get = client.get.bind(client)
      jest.spyOn(client, "get").mockImplementationOnce((async (k: RedisKey) => {
        const value = await get(k)
        await between()
        return value
      }) as typeof client.get)
    }

    it("a rotation landing between the read and the write makes the other writer answer null", async () => {
      afterNextRead(() =>
        make().updateAccountTokens(
          key,
          { access_token: "winner", refresh_token: "rt-w" },
          { expectedRefreshToken: "ghr_refresh" },
        ),
      )
      await expect(
        adapter.updateAccountTokens(
          key,
          { access_token: "loser", refresh_token: "rt-l" },
          { expectedRefreshToken: "ghr_refresh" },
        ),
      ).resolves.toBeNull()
      expect(await adapter.getAccount(key.providerAccountId, key.provider)).toMatchObject({
        access_token: "winner",
        refresh_token: "rt-w",
      })
    })

    it("a change of another column between the read and the write is read again, not overwritten", async () => {
      afterNextRead(() => make().updateAccountTokens(key, { id_token: "id-meanwhile" }))
      const updated = await adapter.updateAccountTokens(
        key,
        { access_token: "mine" },
        { expectedRefreshToken: "ghr_refresh" },
      )
      expect(updated).toMatchObject({ access_token: "mine", id_token: "id-meanwhile", refresh_token: "ghr_refresh" })
      expect(await adapter.getAccount(key.providerAccountId, key.provider)).toEqual(updated)
    })

    it("an account unlinked between the read and the write is not re-created", async () => {
      afterNextRead(() => make().unlinkAccount(key))
      await expect(adapter.updateAccountTokens(key, { access_token: "late" })).resolves.toBeNull()
      expect(await client.exists(accountKey(key))).toBe(0)
      await expect(adapter.getUserByAccount(key)).resolves.toBeNull()
    })

    it("twenty writers with the same old token: one wins; unconditional writers all land", async () => {
      const rotations = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          make().updateAccountTokens(
            key,
            { access_token: `at-${i}`, refresh_token: `rt-${i}` },
            { expectedRefreshToken: "ghr_refresh" },
          ),
        ),
      )
      const winners = rotations.filter((r) => r !== null)
      expect(winners).toHaveLength(1)
      const plain = await Promise.all(
        Array.from({ length: 10 }, (_, i) => make().updateAccountTokens(key, { expires_at: 1000 + i })),
      )
      expect(plain.every((r) => r !== null)).toBe(true)
      const row = await adapter.getAccount(key.providerAccountId, key.provider)
      expect(row?.refresh_token).toBe(winners[0]?.refresh_token)
      expect(plain.map((r) => r?.expires_at)).toContain(row?.expires_at)
    })

    it("leaves the stored JSON's numbers and arrays exactly as written (no re-encoding on the server)", async () => {
      const other = await linked(adapter, { big_id: Number.MAX_SAFE_INTEGER, roles: [], claims: {} })
      await adapter.updateAccountTokens(other, { access_token: "fresh" }, { expectedRefreshToken: "ghr_refresh" })
      const raw = JSON.parse((await client.get(accountKey(other))) as string) as Record<string, unknown>
      expect(raw).toMatchObject({ big_id: Number.MAX_SAFE_INTEGER, roles: [], claims: {}, access_token: "fresh" })
      expect(await client.pttl(accountKey(other))).toBe(-1)
    })
  })
})
