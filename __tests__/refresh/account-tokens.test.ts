// `updateAccountTokens` (next-wave D.1 step 6) on the in-process adapters: a patch of the token columns, and the
// compare-and-swap on the stored refresh token that lets exactly one of two rotations win (D9).
import BetterSqlite3 from "better-sqlite3"
import { MemoryAdapter } from "../../lib/adapters/memory"
import { SQLiteAdapter } from "../../lib/adapters/sqlite"
import type { AccountTokenAdapter, Adapter } from "../../lib/adapters/types"
import { aUser, anAccount } from "../adapters/contract/fixtures"

type Subject = Required<Adapter> & AccountTokenAdapter

const adapters: Array<[string, () => Subject]> = [
  ["memory", () => MemoryAdapter()],
  ["sqlite", () => SQLiteAdapter(new BetterSqlite3(":memory:"))],
]

describe.each(adapters)("%s adapter: updateAccountTokens", (_name, make) => {
  let adapter: Subject
  let key: { provider: string; providerAccountId: string }

  beforeEach(async () => {
    adapter = make()
    const user = await adapter.createUser(aUser())
    const account = anAccount(user.id)
    await adapter.linkAccount(account)
    key = { provider: account.provider, providerAccountId: account.providerAccountId }
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
  })

  it("an unknown account answers null", async () => {
    await expect(
      adapter.updateAccountTokens({ provider: "github", providerAccountId: "nobody" }, { access_token: "z" }),
    ).resolves.toBeNull()
  })
})
