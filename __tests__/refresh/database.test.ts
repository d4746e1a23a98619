// Refresh-token rotation with database sessions (next-wave D.3 rows D1, D2, D5-D12) against a real oidc-provider that
// rotates refresh tokens, counting the refresh grants that reach its token endpoint. Date is faked (timers too in D12).
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { RefreshTokenError } from "../../lib/errors"
import { DEFAULT_HTTP_TIMEOUT } from "../../lib/oauth/fetch"
import { accountPointerKey, sha256 } from "../../lib/core/session/tokens"
import { MemoryStore } from "../../lib/storage/memory/store"
import { Gatehouse, type WebGatehouse } from "../../lib/web/gatehouse"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { fakeDateOnly } from "../fixtures/clock"
import {
  accessToken,
  AT_TTL,
  Browser,
  recordingLogger,
  SECRET,
  signIn,
  startRefreshOp,
  type RefreshOp,
} from "./harness"

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0)
let rop: RefreshOp
let adapter: ReturnType<typeof MemoryAdapter>
let gh: WebGatehouse
let logger: ReturnType<typeof recordingLogger>
let events: Array<{ provider: string; userId?: string; reason: string }>
let browser: Browser
let store: ReturnType<typeof MemoryStore>

const now = () => Math.floor(Date.now() / 1000)

function config(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter,
    store,
    session: { strategy: "database" },
    logger,
    events: { refreshTokenError: (message) => void events.push(message) },
    providers: [rop.provider()],
    ...extra,
  }
}

async function account() {
  const row = await adapter.getAccount("alice", "op")
  if (!row) throw new Error("no account row")
  return row
}

/** Makes the stored access token expire in `seconds` (D1: within the 60-second window). */
async function expireIn(seconds: number) {
  await adapter.updateAccountTokens({ provider: "op", providerAccountId: "alice" }, { expires_at: now() + seconds })
}

async function sessionJson(b = browser): Promise<Record<string, unknown> | null> {
  const response = await gh.handle(b.request("/auth/session"))
  return (await response!.json()) as Record<string, unknown> | null
}

beforeAll(async () => {
  rop = await startRefreshOp()
})
afterAll(async () => {
  jest.useRealTimers()
  await rop.close()
})
beforeEach(async () => {
  fakeDateOnly(T0)
  adapter = MemoryAdapter()
  store = MemoryStore()
  logger = recordingLogger()
  events = []
  rop.tap.calls = 0
  rop.tap.mode = { kind: "pass" }
  gh = Gatehouse(config())
  browser = new Browser()
  await signIn(gh, browser)
})
afterEach(() => jest.useRealTimers())

describe("sign-in keeps the provider tokens", () => {
  it("stores the OP's access and refresh tokens on the account row, in plaintext by default", async () => {
    const row = await account()
    expect(typeof row.access_token).toBe("string")
    expect(typeof row.refresh_token).toBe("string")
    expect(row.refresh_token?.startsWith("gh1.")).toBe(false)
    expect(row.expires_at).toBe(now() + AT_TTL)
  })

  it("hands out the stored access token without a refresh while it is not due", async () => {
    const { value } = await accessToken(gh, browser)
    expect(value).toEqual({
      accessToken: (await account()).access_token,
      expiresAt: now() + AT_TTL,
      scope: expect.stringContaining("openid"),
      tokenType: "bearer",
    })
    expect(rop.tap.calls).toBe(0)
  })

  it("answers null without a session", async () => {
    const { value, error } = await accessToken(gh, new Browser())
    expect(error).toBeUndefined()
    expect(value).toBeNull()
  })
})

describe("D1, D5: a due token is refreshed once and the row rotated", () => {
  it("D1: expires_at = now + 30 with window 60 → one grant, the new AT returned and stored", async () => {
    const before = await account()
    await expireIn(30)
    const { value } = await accessToken(gh, browser)
    const after = await account()
    expect(rop.tap.calls).toBe(1)
    expect(value?.accessToken).toBe(after.access_token)
    expect(after.access_token).not.toBe(before.access_token)
    expect(after.refresh_token).not.toBe(before.refresh_token)
    expect(after.expires_at).toBe(now() + AT_TTL)
    // The next call finds a fresh token: no grant.
    await accessToken(gh, browser)
    expect(rop.tap.calls).toBe(1)
  })

  it("refreshes early only inside the window: expires_at = now + 61 is not due", async () => {
    await expireIn(61)
    await accessToken(gh, browser)
    expect(rop.tap.calls).toBe(0)
  })

  it("force refreshes a token that is not due", async () => {
    const { value } = await accessToken(gh, browser, { force: true })
    expect(rop.tap.calls).toBe(1)
    expect(value?.accessToken).toBe((await account()).access_token)
  })

  it("D5: the OP omits refresh_token → the stored RT is unchanged, the AT updated", async () => {
    const before = await account()
    rop.tap.mode = { kind: "drop-refresh-token" }
    const { value } = await accessToken(gh, browser, { force: true })
    const after = await account()
    expect(after.refresh_token).toBe(before.refresh_token)
    expect(after.access_token).not.toBe(before.access_token)
    expect(value?.accessToken).toBe(after.access_token)
  })
})

describe("the account pointer of database sessions", () => {
  it("lives session.maxAge from sign-in and is renewed by every refresh (sliding sessions keep refreshing)", async () => {
    const short = Gatehouse(config({ session: { strategy: "database", maxAge: 3600, updateAge: 60 } }))
    const b = new Browser()
    await signIn(short, b)
    const pointer = accountPointerKey("op", (await account()).userId)
    jest.setSystemTime(T0 + 3_000_000)
    await accessToken(short, b, { force: true })
    jest.setSystemTime(T0 + 4_000_000)
    expect(await store.get([pointer])).toEqual(["alice"])
    jest.setSystemTime(T0 + 6_700_000)
    expect(await store.get([pointer])).toEqual([null])
  })
})

describe("D2: single flight in one process", () => {
  it("50 concurrent calls → one grant, 50 identical access tokens", async () => {
    await expireIn(30)
    const results = await Promise.all(Array.from({ length: 50 }, () => accessToken(gh, browser.copy())))
    expect(rop.tap.calls).toBe(1)
    const tokens = new Set(results.map((r) => r.value?.accessToken))
    expect(tokens.size).toBe(1)
    expect([...tokens][0]).toBe((await account()).access_token)
    expect(results.every((r) => r.error === undefined)).toBe(true)
  })
})

describe("D6: invalid_grant", () => {
  it("throws RefreshTokenError(invalid_grant), clears the AT, flags the session, fires the event once", async () => {
    const before = await account()
    // Another client of the grant redeems our refresh token first: the OP then refuses ours (real reuse detection).
    expect((await rop.redeemElsewhere(before.refresh_token as string)).status).toBe(200)
    const { error } = await accessToken(gh, browser, { force: true })
    expect(error).toBeInstanceOf(RefreshTokenError)
    expect((error as RefreshTokenError).type).toBe("RefreshTokenError")
    expect((error as RefreshTokenError).cause?.reason).toBe("invalid_grant")
    const after = await account()
    expect(after.access_token).toBeUndefined()
    expect(after.refresh_token).toBeUndefined()
    expect(after.expires_at).toBe(0)
    expect(events).toEqual([{ provider: "op", userId: after.userId, reason: "invalid_grant" }])
    const session = await sessionJson()
    expect(session).toMatchObject({ error: "RefreshTokenError", user: { email: "alice@example.test" } })
    expect(await gh.auth(browser.request("/"))).toMatchObject({ error: "RefreshTokenError" })
    // Nothing left to refresh with: no_refresh_token, and no further grant.
    const again = await accessToken(gh, browser)
    expect((again.error as RefreshTokenError).cause?.reason).toBe("no_refresh_token")
    expect(rop.tap.calls).toBe(1)
  })

  it("a new sign-in clears the error and stores new tokens", async () => {
    await rop.redeemElsewhere((await account()).refresh_token as string)
    await accessToken(gh, browser, { force: true })
    jest.setSystemTime(T0 + 1000)
    const fresh = new Browser()
    await signIn(gh, fresh)
    const session = await sessionJson(fresh)
    expect(session?.error).toBeUndefined()
    expect(typeof (await account()).refresh_token).toBe("string")
    const { value } = await accessToken(gh, fresh, { force: true })
    expect(value?.accessToken).toBe((await account()).access_token)
  })

  it("a store failure while recording the error is logged; the caller still gets invalid_grant", async () => {
    const failing = { ...store, setMax: () => Promise.reject(new Error("store down")) }
    const shaky = Gatehouse(config({ store: failing }))
    rop.tap.mode = { kind: "answer", status: 400, body: { error: "invalid_grant" } }
    const { error } = await accessToken(shaky, browser, { force: true })
    expect((error as RefreshTokenError).cause?.reason).toBe("invalid_grant")
    expect(events.map((e) => e.reason)).toEqual(["invalid_grant"])
    expect(logger.lines.some((line) => line.includes("store down"))).toBe(true)
    expect((await account()).access_token).toBeUndefined()
  })

  it("session.refresh.signOutOnError: true → no session instead of a session with an error", async () => {
    const strict = Gatehouse(config({ session: { strategy: "database", refresh: { signOutOnError: true } } }))
    await rop.redeemElsewhere((await account()).refresh_token as string)
    await accessToken(strict, browser, { force: true })
    expect(await strict.auth(browser.request("/"))).toBeNull()
  })
})

describe("D7: a hanging token endpoint", () => {
  it("rejects after httpTimeout with transient, changes nothing, and backs off for 5 s", async () => {
    expect(DEFAULT_HTTP_TIMEOUT).toBe(10_000)
    const quick = Gatehouse(config({ httpTimeout: 1_000 }))
    await expireIn(-5)
    const before = await account()
    rop.tap.mode = { kind: "hang" }
    const started = performance.now()
    const { error } = await accessToken(quick, browser)
    expect(performance.now() - started).toBeLessThan(1_500)
    expect((error as RefreshTokenError).cause?.reason).toBe("transient")
    // The provider's failure comes through the engine's wrapper: one coded error, the network's code kept.
    expect((error as RefreshTokenError).cause?.err).toMatchObject({
      type: "OAuthProtocolError",
      code: "oauth_unavailable",
      cause: { code: "TimeoutError", provider: expect.any(String) },
    })
    expect(await account()).toEqual(before)
    expect(rop.tap.calls).toBe(1)
    // Within 5 s: the endpoint is not called again.
    jest.setSystemTime(T0 + 4_000)
    const second = await accessToken(quick, browser)
    expect((second.error as RefreshTokenError).cause?.reason).toBe("transient")
    expect(rop.tap.calls).toBe(1)
    // After the back-off (and the lock's 15 s), a working endpoint refreshes.
    rop.tap.mode = { kind: "pass" }
    jest.setSystemTime(T0 + 16_000)
    const third = await accessToken(quick, browser)
    expect(third.error).toBeUndefined()
    expect(rop.tap.calls).toBe(2)
  })

  it("a transient failure hands out the current access token while it is still valid", async () => {
    await expireIn(30)
    const before = await account()
    rop.tap.mode = { kind: "answer", status: 503, body: { error: "temporarily_unavailable" } }
    const { value, error } = await accessToken(gh, browser)
    expect(error).toBeUndefined()
    expect(value?.accessToken).toBe(before.access_token)
    expect(await account()).toEqual(before)
    expect(events).toEqual([])
  })
})

describe("D8: a refreshed ID token with another subject", () => {
  it("RefreshTokenError(id_token_mismatch); tokens unchanged; the session ends", async () => {
    const before = await account()
    rop.tap.mode = { kind: "id-token-sub", sub: "mallory" }
    const { error, setCookies } = await accessToken(gh, browser, { force: true })
    expect((error as RefreshTokenError).cause?.reason).toBe("id_token_mismatch")
    expect(await account()).toEqual(before)
    expect(setCookies.some((c) => /^authjs\.session-token=;/.test(c))).toBe(true)
    expect(await sessionJson()).toBeNull()
    expect(events.map((e) => e.reason)).toEqual(["id_token_mismatch"])
  })

  it.each([
    ["another issuer", { kind: "id-token", claims: {}, issuer: "http://127.0.0.1:1/other" }],
    ["an azp the original did not have", { kind: "id-token", claims: { azp: "refresh-app" } }],
    ["an audience that is another client", { kind: "id-token", claims: { aud: "someone-else" } }],
  ] as const)("RT-01: a refreshed ID token with %s is refused (id_token_mismatch)", async (_what, mode) => {
    const before = await account()
    rop.tap.mode = mode
    const { error } = await accessToken(gh, browser, { force: true })
    expect((error as RefreshTokenError).cause?.reason).toBe("id_token_mismatch")
    expect(await account()).toEqual(before)
  })

  it("the same subject in a refreshed ID token is accepted", async () => {
    rop.tap.mode = { kind: "id-token-sub", sub: "alice" }
    const { value, error } = await accessToken(gh, browser, { force: true })
    expect(error).toBeUndefined()
    expect(value?.accessToken).toBe((await account()).access_token)
  })
})

describe("D9: compare-and-swap on the account row", () => {
  it("two writers with the same old RT: one row update; the loser re-reads and returns the winner's AT", async () => {
    const { refresh_token: old } = await account()
    const key = { provider: "op", providerAccountId: "alice" }
    const [a, b] = await Promise.all([
      adapter.updateAccountTokens(
        key,
        { access_token: "winner-at", refresh_token: "rt-a" },
        { expectedRefreshToken: old },
      ),
      adapter.updateAccountTokens(
        key,
        { access_token: "loser-at", refresh_token: "rt-b" },
        { expectedRefreshToken: old },
      ),
    ])
    expect([a, b].filter((r) => r !== null)).toHaveLength(1)
    expect((await account()).access_token).toBe("winner-at")
  })

  it("a refresh that loses the swap returns the row's tokens and refreshes nothing more", async () => {
    await expireIn(30)
    const { refresh_token: old } = await account()
    const real = adapter.updateAccountTokens
    // Another instance swaps the row right before this one writes (its grant already spent).
    adapter.updateAccountTokens = async (key, patch, options) => {
      if (options?.expectedRefreshToken === old) {
        await real(key, { access_token: "other-instance-at", refresh_token: "other-instance-rt" })
      }
      return real(key, patch, options)
    }
    try {
      const { value } = await accessToken(Gatehouse(config()), browser)
      expect(value?.accessToken).toBe("other-instance-at")
      expect((await account()).refresh_token).toBe("other-instance-rt")
      expect(rop.tap.calls).toBe(1)
    } finally {
      adapter.updateAccountTokens = real
    }
  })
})

describe("an adapter without updateAccountTokens (e.g. an Auth.js adapter)", () => {
  it("rotates through unlink + link under the lock, and a second sign-in replaces the tokens", async () => {
    const { updateAccountTokens: _cas, ...plain } = adapter
    const legacy = Gatehouse(config({ adapter: plain }))
    const before = await account()
    const { value } = await accessToken(legacy, browser, { force: true })
    const after = await account()
    expect(rop.tap.calls).toBe(1)
    expect(value?.accessToken).toBe(after.access_token)
    expect(after.refresh_token).not.toBe(before.refresh_token)
    expect(after.userId).toBe(before.userId)
    const other = new Browser()
    await signIn(legacy, other)
    expect((await account()).refresh_token).not.toBe(after.refresh_token)
  })
})

describe("D10: tokens never leak", () => {
  it("no access, refresh or ID token in /auth/session JSON or any log line", async () => {
    await expireIn(30)
    await accessToken(gh, browser)
    rop.tap.mode = { kind: "id-token-sub", sub: "alice" }
    await accessToken(gh, browser, { force: true })
    const session = JSON.stringify(await sessionJson())
    rop.tap.mode = { kind: "answer", status: 400, body: { error: "invalid_grant" } }
    await accessToken(gh, browser, { force: true })
    const texts = [session, ...logger.lines]
    expect(rop.tap.issued.size).toBeGreaterThanOrEqual(5)
    for (const token of rop.tap.issued) for (const text of texts) expect(text).not.toContain(token)
  })
})

describe("D11: encryption at rest", () => {
  it("stores gh1. values; a plaintext row (as Auth.js writes it) still refreshes and is then encrypted", async () => {
    const plain = await account()
    expect(plain.refresh_token?.startsWith("gh1.")).toBe(false)
    const sealed = Gatehouse(config({ tokens: { encryptAtRest: true } }))
    const { value } = await accessToken(sealed, browser, { force: true })
    const row = await account()
    expect(row.refresh_token?.startsWith("gh1.")).toBe(true)
    expect(row.access_token?.startsWith("gh1.")).toBe(true)
    expect(value?.accessToken).toMatch(/^[^.]+$/)
    expect(row.access_token).not.toContain(value!.accessToken)
    // And the encrypted row refreshes again.
    const again = await accessToken(sealed, browser, { force: true })
    expect(again.value?.accessToken).not.toBe(value?.accessToken)
    expect(rop.tap.calls).toBe(2)
  })

  it("a new sign-in with encryptAtRest writes gh1. columns", async () => {
    adapter = MemoryAdapter()
    const fresh = Gatehouse(config({ tokens: { encryptAtRest: true } }))
    const b = new Browser()
    await signIn(fresh, b, "alice")
    const row = await account()
    expect(row.refresh_token?.startsWith("gh1.")).toBe(true)
    const { value } = await accessToken(fresh, b)
    expect(value?.accessToken.startsWith("gh1.")).toBe(false)
  })
})

describe("D12: a lock holder that never finishes", () => {
  it("others wait at most 5 s, then get transient; after the 15 s lock TTL one call refreshes", async () => {
    await expireIn(-5)
    const { refresh_token: rt } = await account()
    // Simulates a crashed holder: the lock is taken and never released.
    expect(await store.consume(`rt-lock:op:${sha256(rt as string)}`, 15)).toBe(true)
    // Timers faked too for the wait (memory store and adapter: nothing here needs a real timer).
    jest.useFakeTimers({ now: Date.now(), doNotFake: ["nextTick", "queueMicrotask", "setImmediate"] })
    let settled = false
    const pending = Promise.all([accessToken(gh, browser), accessToken(gh, browser.copy())]).finally(() => {
      settled = true
    })
    await jest.advanceTimersByTimeAsync(4_800)
    expect(settled).toBe(false)
    await jest.advanceTimersByTimeAsync(300)
    const results = await pending
    for (const r of results) expect((r.error as RefreshTokenError).cause?.reason).toBe("transient")
    expect(rop.tap.calls).toBe(0)
    fakeDateOnly(T0 + 16_000)
    const { value } = await accessToken(gh, browser)
    expect(rop.tap.calls).toBe(1)
    expect(value?.accessToken).toBe((await account()).access_token)
  })
})
