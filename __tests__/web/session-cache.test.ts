// Issue 16 item 5: the optional in-process cache of database sessions (`session.cache: { ttl, max }`), on a real
// SQLite database, with a Date-only fake clock.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import type { Adapter } from "../../lib/storage/adapter"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import { cachedSessionAdapter } from "../../lib/core/kernel/config/session-cache"
import { hashSessionToken } from "../../lib/core/session/token"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import { Gatehouse } from "../../lib/web"
import { fakeDateOnly } from "../fixtures/clock"

const COOKIE = "authjs.session-token"
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0)
const DAY = 86_400_000

let dir: string
let db: InstanceType<typeof Database>
let adapter: ReturnType<typeof SQLiteAdapter>
/** getSessionAndUser calls that reached the database. */
let reads: number

beforeEach(async () => {
  fakeDateOnly(T0)
  dir = mkdtempSync(join(tmpdir(), "gh-session-cache-"))
  db = new Database(join(dir, "sessions.sqlite"))
  adapter = SQLiteAdapter(db)
  reads = 0
  for (const id of ["u1", "u2"]) {
    await adapter.createUser({ id, name: `User ${id}`, email: `${id}@example.test`, emailVerified: null })
  }
})

afterEach(() => {
  jest.useRealTimers()
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The adapter the app gets: the real one, counting the session reads that reach SQLite. */
function counted(): Adapter {
  return {
    ...adapter,
    getSessionAndUser: (key: string) => {
      reads++
      return adapter.getSessionAndUser(key)
    },
  }
}

function gatehouse(session: AuthConfig["session"] = {}, app: Adapter = counted()) {
  return Gatehouse({
    secret: "session-cache-secret-0123456789abcdefghij",
    trustHost: true,
    adapter: app,
    session: { strategy: "database", ...session },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [Credentials({ credentials: {}, authorize: () => null })],
  })
}

async function seed(token: string, userId = "u1", expiresIn = 30 * DAY): Promise<void> {
  await adapter.createSession({
    sessionToken: hashSessionToken(token),
    userId,
    expires: new Date(Date.now() + expiresIn),
  })
}

const page = (token: string) =>
  new Request("http://localhost:3000/account", { headers: { cookie: `${COOKIE}=${token}` } })

describe("session.cache (database sessions)", () => {
  it("is off by default: every read asks the adapter", async () => {
    const gh = gatehouse()
    await seed("token-a-0123456789")
    for (let i = 0; i < 3; i++)
      expect(await gh.auth(page("token-a-0123456789"))).toMatchObject({ user: { name: "User u1" } })
    expect(reads).toBe(3)
  })

  it("a hit: reads within ttl are answered from memory with the same session", async () => {
    const gh = gatehouse({ cache: { ttl: 5 } })
    await seed("token-a-0123456789")
    const first = await gh.auth(page("token-a-0123456789"))
    jest.setSystemTime(T0 + 4_999)
    const second = await gh.auth(page("token-a-0123456789"))
    expect(first).toMatchObject({ user: { name: "User u1", email: "u1@example.test" } })
    expect(second).toEqual(first)
    expect(reads).toBe(1)
    // The route answers from the same entry.
    const route = await gh.handlers.GET(
      new Request("http://localhost:3000/auth/session", { headers: { cookie: `${COOKIE}=token-a-0123456789` } }),
    )
    expect(await route.json()).toMatchObject({ user: { name: "User u1" } })
    expect(reads).toBe(1)
  })

  it("expiry: after ttl the adapter is asked again, and a change made elsewhere is seen then (documented staleness)", async () => {
    const gh = gatehouse({ cache: { ttl: 5 } })
    await seed("token-a-0123456789")
    expect(await gh.auth(page("token-a-0123456789"))).not.toBeNull()
    // Another process signs this session out, straight in the database.
    await adapter.deleteSession(hashSessionToken("token-a-0123456789"))
    jest.setSystemTime(T0 + 4_000)
    expect(await gh.auth(page("token-a-0123456789"))).not.toBeNull()
    expect(reads).toBe(1)
    jest.setSystemTime(T0 + 5_000)
    expect(await gh.auth(page("token-a-0123456789"))).toBeNull()
    // Asked again: by the token's hash, then (not found) by the raw token, as for a row from before hashing.
    expect(reads).toBe(3)
  })

  it("a cached session past its own expiry is not served", async () => {
    // updateAge = maxAge: no expiry slide, so the session really ends 10 s from now.
    const gh = gatehouse({ cache: { ttl: 60 }, maxAge: 20, updateAge: 20 })
    await seed("token-a-0123456789", "u1", 10_000)
    expect(await gh.auth(page("token-a-0123456789"))).not.toBeNull()
    jest.setSystemTime(T0 + 9_999)
    expect(await gh.auth(page("token-a-0123456789"))).not.toBeNull()
    expect(reads).toBe(1)
    jest.setSystemTime(T0 + 10_001)
    expect(await gh.auth(page("token-a-0123456789"))).toBeNull()
    expect(reads).toBe(2)
    expect(await adapter.getSessionAndUser(hashSessionToken("token-a-0123456789"))).toBeNull()
  })

  it("bound: at most `max` sessions, the least recently used evicted", async () => {
    const gh = gatehouse({ cache: { ttl: 60, max: 2 } })
    for (const t of ["token-a-0123456789", "token-b-0123456789", "token-c-0123456789"]) await seed(t)
    await gh.auth(page("token-a-0123456789"))
    await gh.auth(page("token-b-0123456789"))
    await gh.auth(page("token-a-0123456789")) // a is now the most recent
    expect(reads).toBe(2)
    await gh.auth(page("token-c-0123456789")) // evicts b
    expect(reads).toBe(3)
    await gh.auth(page("token-a-0123456789"))
    expect(reads).toBe(3)
    await gh.auth(page("token-b-0123456789"))
    expect(reads).toBe(4)
  })

  it("sign-out in this process takes effect at once", async () => {
    const gh = gatehouse({ cache: { ttl: 60 } })
    await seed("token-a-0123456789")
    expect(await gh.auth(page("token-a-0123456789"))).not.toBeNull()
    const logout = new Request("http://localhost:3000/logout", {
      method: "POST",
      headers: { cookie: `${COOKIE}=token-a-0123456789`, origin: "http://localhost:3000" },
    })
    const response = await gh.signOut(logout)
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE}=;`))).toBe(true)
    expect(await adapter.getSessionAndUser(hashSessionToken("token-a-0123456789"))).toBeNull()
    expect(await gh.auth(page("token-a-0123456789"))).toBeNull()
  })

  it("revoking a user's sessions in this process drops that user's entries only", async () => {
    const gh = gatehouse({ cache: { ttl: 60 } })
    await seed("token-a-0123456789", "u1")
    await seed("token-b-0123456789", "u2")
    await gh.auth(page("token-a-0123456789"))
    await gh.auth(page("token-b-0123456789"))
    expect(reads).toBe(2)
    await expect(gh.revokeUserSessions("u1")).resolves.toBe(1)
    expect(await gh.auth(page("token-a-0123456789"))).toBeNull()
    // u1's entry was dropped (asked by hash, then by raw token); u2's is still served from memory.
    expect(reads).toBe(4)
    expect(await gh.auth(page("token-b-0123456789"))).toMatchObject({ user: { name: "User u2" } })
    expect(reads).toBe(4)
  })

  it("the expiry slide still writes once per updateAge and the slid session is read back", async () => {
    const gh = gatehouse({ cache: { ttl: 60 }, updateAge: 3600 })
    await seed("token-a-0123456789")
    await gh.auth(page("token-a-0123456789"))
    jest.setSystemTime(T0 + 3600_000) // updateAge later
    const request = page("token-a-0123456789")
    expect(await gh.auth(request)).not.toBeNull()
    const cookies = gh.applyCookies(request, new Response("ok")).headers.getSetCookie()
    expect(cookies).toHaveLength(1)
    const stored = await adapter.getSessionAndUser(hashSessionToken("token-a-0123456789"))
    expect(stored!.session.expires.valueOf()).toBe(T0 + 3600_000 + 30 * DAY)
    // The slide dropped the entry: the next read sees the new expiry, and writes nothing more.
    const again = page("token-a-0123456789")
    expect(await gh.auth(again)).toMatchObject({ expires: new Date(T0 + 3600_000 + 30 * DAY).toISOString() })
    expect(gh.applyCookies(again, new Response("ok")).headers.getSetCookie()).toEqual([])
  })

  it("two initializers on the same adapter object share one cache: a sign-out through one is seen by the other", async () => {
    const shared = counted()
    const one = gatehouse({ cache: { ttl: 60 } }, shared)
    const other = gatehouse({ cache: { ttl: 60 } }, shared)
    await seed("token-a-0123456789")
    expect(await one.auth(page("token-a-0123456789"))).not.toBeNull()
    expect(await other.auth(page("token-a-0123456789"))).not.toBeNull()
    expect(reads).toBe(1)
    await one.revokeUserSessions("u1")
    expect(await other.auth(page("token-a-0123456789"))).toBeNull()
  })

  it("writes inside an adapter transaction drop the cache when it ends", async () => {
    const key = hashSessionToken("token-a-0123456789")
    await seed("token-a-0123456789")
    const cached = cachedSessionAdapter(
      { ...counted(), transaction: async (fn: (tx: Adapter) => Promise<unknown>) => fn(adapter) } as Adapter,
      { ttl: 60, max: 10 },
    )
    expect(await cached.getSessionAndUser!(key)).not.toBeNull()
    expect(await cached.getSessionAndUser!(key)).not.toBeNull()
    expect(reads).toBe(1)
    const tx = (cached as { transaction: (fn: (tx: Adapter) => Promise<unknown>) => Promise<unknown> }).transaction
    await tx(async (inner) => inner.deleteSession!(key))
    expect(await cached.getSessionAndUser!(key)).toBeNull()
    expect(reads).toBe(2)
  })

  it.each([
    [{ ttl: 0 }, /session\.cache\.ttl/],
    [{ ttl: 301 }, /session\.cache\.ttl/],
    [{ ttl: "5" }, /session\.cache\.ttl/],
    [{ ttl: 5, max: 0 }, /session\.cache\.max/],
    [{ ttl: 5, max: 1.5 }, /session\.cache\.max/],
    ["5", /session\.cache must be an object/],
  ])("bad settings %p: a clear error at construction", (cache, message) => {
    expect(() => gatehouse({ cache: cache as never })).toThrow(message)
  })
})
