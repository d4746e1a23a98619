// Regression: a trusted device lost its trust when a *server-side* `signIn()` (from a route handler of the app) failed
// after spending its trust cookie. The web route hands an equivalent cookie back on its error answer
// (trust-kept-when-sign-in-fails.test.ts); the in-process call threw its error and dropped every cookie of the
// action's answer, so the browser kept only the spent cookie and was challenged next time. A failed server call now
// writes the cookies its error answer carries (and still throws the same error).
import express from "express"
import type { Express } from "express"
import request from "supertest"
import { Gatehouse } from "../../../lib"
import { AuthError } from "../../../lib/errors"
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

/** An app whose `POST /login` signs alice in server-side; `broken.on` makes the sign-in fail after the first factor. */
async function makeApp(strategy: "jwt" | "database") {
  const adapter = MemoryAdapter()
  const broken = { on: false }
  await adapter.createUser({ ...USER, emailVerified: null })
  const raw = await enrolTotp(adapter, USER.id, [SECRET])
  const createSession = adapter.createSession.bind(adapter)
  adapter.createSession = (session) => {
    if (broken.on) throw new Error("database down")
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
      // The jwt callback runs for JWT sessions only; a database session fails in the adapter instead.
      jwt: ({ token }) => {
        if (broken.on) throw new Error("jwt callback failed")
        return token
      },
    },
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: (c) => (c.username === "alice" && c.password === "wonderland" ? USER : null),
      }),
    ],
  }
  const { handlers, signIn } = Gatehouse(config)
  const app: Express = express()
  app.use("/auth", handlers)
  app.post("/login", express.urlencoded({ extended: false }), (req, res) => {
    const { username, password } = req.body as Record<string, string>
    signIn(req, res, "credentials", { username, password, redirectTo: "/home", redirect: false })
      .then((url) => res.json({ url }))
      .catch((error: unknown) => res.status(401).json({ error: error instanceof AuthError ? error.type : "other" }))
  })
  return { app, raw, broken }
}

const setCookies = (res: request.Response) => [res.headers["set-cookie"] ?? []].flat() as string[]
const trustLine = (res: request.Response) => setCookies(res).find((line) => line.startsWith(`${TRUST}=`))
const path = (url: string) => url.replace(/^http:\/\/[^/]+/, "")

/** A server-side sign-in of alice from the app's own page (`Sec-Fetch-Site: same-origin` passes the origin guard). */
async function serverLogin(app: Express, jar: Jar) {
  const res = await request(app)
    .post("/login")
    .set("Sec-Fetch-Site", "same-origin")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ username: "alice", password: "wonderland" })
  return { res, jar: cookieJar(jar, res.headers["set-cookie"]) }
}

/** Signs alice in through the routes with her TOTP code and "trust this device"; the browser keeps the trust cookie. */
async function trustedBrowser(app: Express, raw: Buffer): Promise<Jar> {
  const first = await serverLogin(app, {})
  expect(path(first.res.body.url as string)).toBe("/auth/two-factor")
  const csrf = await request(app).get("/auth/csrf").set("Cookie", cookieHeader(first.jar))
  const jar = cookieJar(first.jar, csrf.headers["set-cookie"])
  const second = await request(app)
    .post("/auth/two-factor")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken as string, code: totpNow(raw), trustDevice: "1" })
  const trusted = cookieJar(jar, second.headers["set-cookie"])
  expect(trusted[TRUST]).toBeDefined()
  return { [TRUST]: trusted[TRUST]! }
}

describe.each(["jwt", "database"] as const)("server-side signIn() from a trusted device (%s sessions)", (strategy) => {
  afterEach(() => jest.useRealTimers())

  it("keeps the device's trust when the sign-in fails after spending it; the error is still thrown", async () => {
    fakeDateOnly(T0)
    const { app, raw, broken } = await makeApp(strategy)
    const jar = await trustedBrowser(app, raw)
    const original = jar[TRUST]!

    jest.setSystemTime(T0 + HOUR)
    broken.on = true
    const failed = await serverLogin(app, jar)
    // The route handler saw the error, as before.
    expect(failed.res.status).toBe(401)
    expect(failed.res.body).toEqual({ error: expect.any(String) })
    expect(failed.jar[SESSION]).toBeUndefined()
    // The answer gives the device a trust cookie back: not the spent one, with the lifetime it had left.
    const restored = trustLine(failed.res)
    expect(restored).toBeDefined()
    expect(failed.jar[TRUST]).not.toBe(original)
    expect(restored).toMatch(new RegExp(`Max-Age=${2_592_000 - HOUR / 1000}(;|$)`))

    // Next time the restored cookie skips the second factor and the sign-in ends with a session.
    broken.on = false
    const again = await serverLogin(app, { [TRUST]: failed.jar[TRUST]! })
    expect(again.res.status).toBe(200)
    expect(path(again.res.body.url as string)).toBe("/home")
    expect(again.jar[SESSION]).toBeDefined()

    // The cookie the failed attempt spent stays spent: a copy of it is challenged.
    const replay = await serverLogin(app, { [TRUST]: original })
    expect(path(replay.res.body.url as string)).toBe("/auth/two-factor")
    expect(replay.jar[SESSION]).toBeUndefined()
  })
})
