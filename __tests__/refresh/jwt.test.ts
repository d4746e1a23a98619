// Refresh-token rotation with JWT sessions (next-wave D.3 row D4, and D2/D6/D10 for the cookie): the tokens live in
// the encrypted session cookie (`__gh.tok`), a late tab with the pre-rotation cookie adopts the successor for 60 s.
import { decode } from "../../lib/jwt"
import { CookieJar } from "../../lib/core/kernel/cookies/jar"
import { CHUNK_SIZE, writeSessionCookie } from "../../lib/core/kernel/cookies/session-store"
import { RefreshTokenError } from "../../lib/errors"
import { MemoryStore } from "../../lib/storage/memory/store"
import { Gatehouse, type WebGatehouse } from "../../lib/web/gatehouse"
import type { AuthConfig, JWT } from "../../lib/core/kernel/types"
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
let gh: WebGatehouse
let browser: Browser
let logger: ReturnType<typeof recordingLogger>
let events: Array<{ provider: string; userId?: string; reason: string }>

function config(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    store: MemoryStore(),
    logger,
    events: { refreshTokenError: (message) => void events.push(message) },
    providers: [rop.provider()],
    ...extra,
  }
}

async function payload(b: Browser): Promise<JWT & { __gh?: { tok?: Record<string, { at: string; rt: string }> } }> {
  const token = b.session()
  if (!token) throw new Error("no session cookie")
  const decoded = await decode({ token, secret: SECRET, salt: "authjs.session-token" })
  if (!decoded) throw new Error("undecodable session cookie")
  return decoded as never
}

async function sessionJson(b: Browser): Promise<Record<string, unknown> | null> {
  const response = await gh.handle(b.request("/auth/session"))
  return (await response!.json()) as Record<string, unknown> | null
}

/** Moves the clock so the access token from sign-in is `secondsLeft` from expiry. */
const dueIn = (secondsLeft: number) => jest.setSystemTime(T0 + (AT_TTL - secondsLeft) * 1000)

beforeAll(async () => {
  rop = await startRefreshOp()
})
afterAll(async () => {
  jest.useRealTimers()
  await rop.close()
})
beforeEach(async () => {
  fakeDateOnly(T0)
  logger = recordingLogger()
  events = []
  rop.tap.mode = { kind: "pass" }
  gh = Gatehouse(config())
  browser = new Browser()
  await signIn(gh, browser)
  rop.tap.calls = 0
})
afterEach(() => jest.useRealTimers())

it("sign-in keeps the tokens in the encrypted cookie only, never in the session JSON", async () => {
  const tok = (await payload(browser)).__gh?.tok?.op
  expect(typeof tok?.at).toBe("string")
  expect(typeof tok?.rt).toBe("string")
  const json = JSON.stringify(await sessionJson(browser))
  expect(json).not.toContain(tok!.at)
  expect(json).not.toContain(tok!.rt)
  expect(json).not.toContain("__gh")
  const { value } = await accessToken(gh, browser)
  expect(value?.accessToken).toBe(tok!.at)
  expect(rop.tap.calls).toBe(0)
})

it("a due token is refreshed once; the re-issued cookie carries the new pair (HttpOnly)", async () => {
  const old = (await payload(browser)).__gh!.tok!.op
  dueIn(30)
  const { value, setCookies } = await accessToken(gh, browser)
  expect(rop.tap.calls).toBe(1)
  const next = (await payload(browser)).__gh!.tok!.op
  expect(value?.accessToken).toBe(next.at)
  expect(next.at).not.toBe(old.at)
  expect(next.rt).not.toBe(old.rt)
  const sessionCookie = setCookies.find((c) => c.startsWith("authjs.session-token="))
  expect(sessionCookie).toMatch(/HttpOnly/i)
})

it("D2 (JWT): 50 concurrent calls with one cookie → one grant, one successor for all", async () => {
  dueIn(30)
  const tabs = Array.from({ length: 50 }, () => browser.copy())
  const results = await Promise.all(tabs.map((tab) => accessToken(gh, tab)))
  expect(rop.tap.calls).toBe(1)
  expect(new Set(results.map((r) => r.value?.accessToken)).size).toBe(1)
  const rts = await Promise.all(tabs.map(async (tab) => (await payload(tab)).__gh!.tok!.op.rt))
  expect(new Set(rts).size).toBe(1)
})

it("D4: tab B with the pre-rotation cookie 2 s later adopts the successor; at +61 s the old cookie fails", async () => {
  const tabB = browser.copy()
  const lateTab = browser.copy()
  const { sub } = await payload(browser)
  const old = (await payload(browser)).__gh!.tok!.op
  dueIn(30)
  const a = await accessToken(gh, browser)
  const rotated = (await payload(browser)).__gh!.tok!.op
  expect(rop.tap.calls).toBe(1)

  jest.setSystemTime(Date.now() + 2_000)
  const b = await accessToken(gh, tabB)
  expect(rop.tap.calls).toBe(1)
  expect(b.value?.accessToken).toBe(a.value?.accessToken)
  expect(b.setCookies.some((c) => c.startsWith("authjs.session-token="))).toBe(true)
  expect((await payload(tabB)).__gh!.tok!.op.rt).toBe(rotated.rt)
  expect(rotated.rt).not.toBe(old.rt)

  jest.setSystemTime(Date.now() + 59_000)
  const late = await accessToken(gh, lateTab)
  expect(rop.tap.calls).toBe(2)
  expect(late.error).toBeInstanceOf(RefreshTokenError)
  expect((late.error as RefreshTokenError).cause?.reason).toBe("invalid_grant")
  // Without an adapter the user id is the stable one derived from the provider account.
  expect(events).toEqual([{ provider: "op", userId: sub, reason: "invalid_grant" }])
  expect(sub).toMatch(/^[0-9a-f-]{36}$/)
  // The late tab's session now says so, and holds no tokens.
  expect(await sessionJson(lateTab)).toMatchObject({ error: "RefreshTokenError" })
  expect((await payload(lateTab)).__gh?.tok?.op).toBeUndefined()
  const again = await accessToken(gh, lateTab)
  expect((again.error as RefreshTokenError).cause?.reason).toBe("no_refresh_token")
  expect(rop.tap.calls).toBe(2)
})

it("signOutOnError: the flagged JWT session reads as no session and its cookie is cleared", async () => {
  const strict = Gatehouse(config({ session: { refresh: { signOutOnError: true } } }))
  rop.tap.mode = { kind: "answer", status: 400, body: { error: "invalid_grant" } }
  await accessToken(strict, browser, { force: true })
  const request = browser.request("/")
  expect(await strict.auth(request)).toBeNull()
  const cleared = browser.absorb(strict.applyCookies(request, new Response(null)))
  expect(cleared.some((c) => /^authjs\.session-token=;/.test(c))).toBe(true)
})

it("bad input: an unknown provider or one without refresh is an InvalidProvider error, nothing written", async () => {
  const unknown = await accessToken(gh, browser, { provider: "nope" })
  expect((unknown.error as { type?: string }).type).toBe("InvalidProvider")
  expect(unknown.setCookies).toEqual([])
  const garbled = new Browser()
  garbled.cookies.set("authjs.session-token", "not-a-jwe")
  const none = await accessToken(gh, garbled)
  expect(none.value).toBeNull()
  expect(rop.tap.calls).toBe(0)
})

it("D10 (JWT): no token in any log line across refresh, grace and failure", async () => {
  dueIn(30)
  const tabB = browser.copy()
  await accessToken(gh, browser)
  await accessToken(gh, tabB)
  rop.tap.mode = { kind: "hang" }
  await accessToken(Gatehouse(config({ httpTimeout: 200 })), browser, { force: true })
  for (const token of rop.tap.issued) for (const line of logger.lines) expect(line).not.toContain(token)
  expect(rop.tap.issued.size).toBeGreaterThanOrEqual(4)
})

it("a session cookie past 3 chunks (large provider tokens) warns session-cookie-large once", () => {
  const warnings: string[] = []
  const log = { error: () => undefined, warn: (code: string) => void warnings.push(code), debug: () => undefined }
  const jar = new CookieJar()
  writeSessionCookie(jar, "authjs.session-token", "x".repeat(CHUNK_SIZE * 3), { path: "/" }, [], log as never)
  expect(warnings).toEqual([])
  writeSessionCookie(jar, "authjs.session-token", "x".repeat(CHUNK_SIZE * 3 + 1), { path: "/" }, [], log as never)
  writeSessionCookie(jar, "authjs.session-token", "x".repeat(CHUNK_SIZE * 5), { path: "/" }, [], log as never)
  expect(warnings).toEqual(["session-cookie-large"])
  expect(jar.toHeaders().filter((c) => c.startsWith("authjs.session-token.")).length).toBeGreaterThan(3)
})
