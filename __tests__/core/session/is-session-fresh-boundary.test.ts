// Regression: `isSessionFresh` truncated "now" to whole seconds, so a session stayed fresh up to a second past
// `session.freshAge` (3.9 s after sign-in still counted as 3 s). The rule is "now − sign-in time ≤ freshAge"; the
// sign-in time is recorded in whole seconds (the JWT `__gh.at` claim; the database row's `createdAt`, read the same
// way), and "now" is not rounded: a session is never fresh past `freshAge`, with either strategy.
import express from "express"
import type { Express } from "express"
import request from "supertest"
import { Gatehouse } from "../../../lib"
import Credentials from "../../../lib/providers/credentials"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { fakeDateOnly } from "../../fixtures/clock"
import { SECRET, cookieHeader, cookieJar } from "../../express/apps"

const SESSION = "authjs.session-token"
const SECOND = Date.parse("2026-03-01T10:00:00.000Z")

function makeApp(strategy: "jwt" | "database"): Express {
  const gatehouse = Gatehouse({
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    session: { strategy, freshAge: 3 },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: (c) => (c.password === "pw" ? { id: "user-ada", email: "ada@example.test" } : null),
      }),
    ],
  })
  const app = express()
  app.use("/auth", gatehouse.handlers)
  app.get("/fresh", (req, res) => {
    gatehouse.isSessionFresh(req).then(
      (fresh) => void res.json({ fresh }),
      (error: Error) => void res.status(500).json({ error: error.message }),
    )
  })
  return app
}

async function signIn(app: Express): Promise<Record<string, string>> {
  const csrf = await request(app).get("/auth/csrf")
  const jar = cookieJar({}, csrf.headers["set-cookie"])
  const res = await request(app)
    .post("/auth/callback/credentials")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken as string, username: "ada", password: "pw" })
  const signedIn = cookieJar(jar, res.headers["set-cookie"])
  expect(signedIn[SESSION]).toBeDefined()
  return signedIn
}

async function freshAfter(app: Express, jar: Record<string, string>, signedInAt: number, ms: number) {
  jest.setSystemTime(signedInAt + ms)
  const res = await request(app).get("/fresh").set("Cookie", cookieHeader(jar))
  expect(res.status).toBe(200)
  return (res.body as { fresh: boolean }).fresh
}

describe.each(["jwt", "database"] as const)("isSessionFresh at the freshAge boundary (%s sessions)", (strategy) => {
  afterEach(() => jest.useRealTimers())

  it("a session signed in on a whole second is fresh for exactly freshAge seconds", async () => {
    fakeDateOnly(SECOND)
    const app = makeApp(strategy)
    const jar = await signIn(app)
    expect(await freshAfter(app, jar, SECOND, 0)).toBe(true)
    expect(await freshAfter(app, jar, SECOND, 2_999)).toBe(true)
    expect(await freshAfter(app, jar, SECOND, 3_000)).toBe(true)
    expect(await freshAfter(app, jar, SECOND, 3_001)).toBe(false)
    expect(await freshAfter(app, jar, SECOND, 3_500)).toBe(false)
    expect(await freshAfter(app, jar, SECOND, 3_999)).toBe(false)
  })

  it("a sign-in late in a second counts from that second: never fresh past freshAge", async () => {
    const signedInAt = SECOND + 999
    fakeDateOnly(signedInAt)
    const app = makeApp(strategy)
    const jar = await signIn(app)
    expect(await freshAfter(app, jar, signedInAt, 2_001)).toBe(true)
    expect(await freshAfter(app, jar, signedInAt, 2_002)).toBe(false)
    expect(await freshAfter(app, jar, signedInAt, 3_000)).toBe(false)
  })
})
