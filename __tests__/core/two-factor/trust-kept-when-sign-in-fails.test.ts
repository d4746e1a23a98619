// Regression: a trusted device lost its trust when the sign-in it skipped the second factor for then failed (a
// throwing `jwt` callback, a failing adapter). The trust cookie is single use, so it was spent before the session
// existed and the error answer dropped its replacement. Now a sign-in that issues no session hands the device its
// trust back (same age: only a session renews it), and the spent cookie stays spent.
import express from "express"
import type { Express } from "express"
import request from "supertest"
import { Gatehouse } from "../../../lib"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import Credentials from "../../../lib/providers/credentials"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { fakeDateOnly } from "../../fixtures/clock"
import { SECRET, cookieHeader, cookieJar } from "../../express/apps"
import { enrolTotp, totpCode as totpNow } from "../../fixtures/totp"

type Jar = Record<string, string>
const SESSION = "authjs.session-token"
const TRUST = "gatehouse.two-factor-trust"
const USER = { id: "user-alice", email: "alice@example.test", name: "Alice" }
const T0 = Date.parse("2026-03-01T10:00:00.000Z")
const HOUR = 3_600_000

interface Switches {
  jwtThrows: boolean
  jwtRefuses: boolean
  createSessionThrows: boolean
}

async function makeApp(strategy: "jwt" | "database") {
  const adapter = MemoryAdapter()
  const switches: Switches = { jwtThrows: false, jwtRefuses: false, createSessionThrows: false }
  const signIns: Array<Record<string, unknown>> = []
  await adapter.createUser({ ...USER, emailVerified: null })
  const raw = await enrolTotp(adapter, USER.id, [SECRET])
  const createSession = adapter.createSession.bind(adapter)
  adapter.createSession = (session) => {
    if (switches.createSessionThrows) throw new Error("database down")
    return createSession(session)
  }
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy },
    twoFactor: { issuer: "Gatehouse Test" },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    callbacks: {
      jwt: ({ token }) => {
        if (switches.jwtThrows) throw new Error("jwt callback failed")
        return switches.jwtRefuses ? null : token
      },
    },
    events: { signIn: (message) => void signIns.push(message as Record<string, unknown>) },
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: (c) => (c.username === "alice" && c.password === "wonderland" ? USER : null),
      }),
    ],
  }
  const app: Express = express()
  app.use("/auth", Gatehouse(config).handlers)
  return { app, adapter, raw, switches, signIns }
}

async function post(app: Express, path: string, jar: Jar, fields: Record<string, string>) {
  const csrf = await request(app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
  const withCsrf = cookieJar(jar, csrf.headers["set-cookie"])
  const res = await request(app)
    .post(path)
    .set("Cookie", cookieHeader(withCsrf))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken as string, ...fields })
  return { res, jar: cookieJar(withCsrf, res.headers["set-cookie"]) }
}

const firstFactor = (app: Express, jar: Jar) =>
  post(app, "/auth/callback/credentials", jar, { username: "alice", password: "wonderland", callbackUrl: "/home" })
const location = (res: request.Response) => String(res.headers.location ?? "").replace(/^http:\/\/[^/]+/, "")
const trustLine = (res: request.Response) =>
  ([res.headers["set-cookie"] ?? []].flat() as string[]).find((line) => line.startsWith(`${TRUST}=`))

/** Signs alice in with her TOTP code and "trust this device"; the browser's jar (trust cookie, no session). */
async function trustedBrowser(app: Express, raw: Buffer): Promise<Jar> {
  const first = await firstFactor(app, {})
  expect(location(first.res)).toBe("/auth/two-factor")
  const second = await post(app, "/auth/two-factor", first.jar, { code: totpNow(raw), trustDevice: "1" })
  expect(location(second.res)).toBe("/home")
  expect(second.jar[TRUST]).toBeDefined()
  return { [TRUST]: second.jar[TRUST]! }
}

type Failure = [name: string, breakIt: (s: Switches) => void, answer: RegExp]
const ERROR_PAGE = /^\/auth\/(signin|error)\?error=/

describe.each(["jwt", "database"] as const)("trusted device when the sign-in fails (%s sessions)", (strategy) => {
  afterEach(() => jest.useRealTimers())

  // The jwt callback runs for JWT sessions only; a database session fails in the adapter instead.
  const failures: Failure[] =
    strategy === "jwt"
      ? [
          ["a throwing jwt callback", (s) => void (s.jwtThrows = true), ERROR_PAGE],
          // A `jwt` callback that returns null issues no session: the sign-in ends without one.
          ["a jwt callback that returns null", (s) => void (s.jwtRefuses = true), /^\/home$/],
        ]
      : [["a failing createSession", (s) => void (s.createSessionThrows = true), ERROR_PAGE]]

  it.each(failures)("keeps its trust after %s", async (_name, breakIt, answer) => {
    fakeDateOnly(T0)
    const { app, raw, switches, signIns } = await makeApp(strategy)
    const jar = await trustedBrowser(app, raw)
    const original = jar[TRUST]!

    jest.setSystemTime(T0 + HOUR)
    breakIt(switches)
    const failed = await firstFactor(app, jar)
    expect(location(failed.res)).toMatch(answer)
    expect(failed.jar[SESSION]).toBeUndefined()
    // The device holds a trust cookie again, and it is not the spent one.
    const restored = trustLine(failed.res)
    expect(restored).toBeDefined()
    expect(failed.jar[TRUST]).toBeDefined()
    expect(failed.jar[TRUST]).not.toBe(original)
    // The lifetime the spent one had left: a sign-in without a session never lengthens trust.
    expect(restored).toMatch(new RegExp(`Max-Age=${2_592_000 - HOUR / 1000}(;|$)`))

    switches.jwtThrows = false
    switches.jwtRefuses = false
    switches.createSessionThrows = false
    const before = signIns.length
    const again = await firstFactor(app, failed.jar)
    expect(location(again.res)).toBe("/home")
    expect(again.jar[SESSION]).toBeDefined()
    expect(signIns.slice(before)).toEqual([expect.objectContaining({ twoFactor: "trusted-device" })])
    // A sign-in with a session renews trust for the full lifetime.
    expect(trustLine(again.res)).toMatch(/Max-Age=2592000(;|$)/)

    // The cookie spent by the failed attempt is still spent: a copy of it is challenged.
    const replay = await firstFactor(app, { [TRUST]: original })
    expect(location(replay.res)).toBe("/auth/two-factor")
    expect(replay.jar[SESSION]).toBeUndefined()
  })
})
