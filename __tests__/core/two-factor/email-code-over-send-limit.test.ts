// Regression: an emailed second factor over the address's send limit (`email-send-address`) answered `RateLimited` on
// the first-factor step, so a user with the right password was told "too many attempts". Now the first factor
// passes: the browser goes to the two-factor page, which says the code could not be sent and when to ask again;
// nothing is sent and no session is issued until a code is.
import express from "express"
import type { Express } from "express"
import request from "supertest"
import { Gatehouse } from "../../../lib"
import Credentials from "../../../lib/providers/credentials"
import Email from "../../../lib/providers/email"
import type { SendVerificationRequestParams } from "../../../lib/providers/types"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { fakeDateOnly } from "../../fixtures/clock"
import { SECRET, cookieHeader, cookieJar } from "../../express/apps"

type Jar = Record<string, string>
const SESSION = "authjs.session-token"
const PENDING = "gatehouse.two-factor"
const path = (res: request.Response) => String(res.headers.location ?? "").replace(/^http:\/\/127\.0\.0\.1:\d+/, "")

function makeApp(limiterOn: boolean) {
  const mails: SendVerificationRequestParams[] = []
  const gatehouse = Gatehouse({
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    session: { strategy: "database" },
    twoFactor: { methods: ["totp", "email"], required: true },
    rateLimit: { enabled: limiterOn, rules: { "email-send-address": { limit: 1, window: 120 } } },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: (c) =>
          c.username === "gus" && c.password === "pw" ? { id: "user-gus", email: "gus@example.test" } : null,
      }),
      Email({ sendVerificationRequest: (params) => void mails.push(params) }),
    ],
  })
  const app = express()
  app.use("/auth", gatehouse.handlers)
  return { app, mails }
}

async function post(app: Express, route: string, jar: Jar, fields: Record<string, string>) {
  const csrf = await request(app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
  const withCsrf = cookieJar(jar, csrf.headers["set-cookie"])
  const res = await request(app)
    .post(route)
    .set("Cookie", cookieHeader(withCsrf))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken as string, ...fields })
  return { res, jar: cookieJar(withCsrf, res.headers["set-cookie"]) }
}
const password = (app: Express, jar: Jar = {}) =>
  post(app, "/auth/callback/credentials", jar, { username: "gus", password: "pw", callbackUrl: "/dashboard" })

describe("an emailed second factor over the send limit", () => {
  afterEach(() => jest.useRealTimers())

  it("passes the first factor and says on the two-factor page that the code could not be sent", async () => {
    fakeDateOnly(Date.parse("2026-03-01T10:00:00Z"))
    const { app, mails } = makeApp(true)
    const first = await password(app)
    expect(path(first.res)).toBe("/auth/two-factor")
    expect(mails).toHaveLength(1)

    // A second sign-in within the window: the password is right, the mail is over the address's limit.
    const second = await password(app)
    expect(second.res.status).toBe(302)
    const location = new URL(String(second.res.headers.location))
    expect(location.pathname).toBe("/auth/two-factor")
    expect(location.searchParams.get("error")).toBeNull()
    expect(location.searchParams.get("sent")).toBe("0")
    // The clock stands still: the whole window of the first send is left.
    const retry = Number(location.searchParams.get("retry"))
    expect(retry).toBe(120)
    expect(second.res.headers["retry-after"]).toBe(String(retry))
    expect(second.jar[SESSION]).toBeUndefined()
    expect(second.jar[PENDING]).toBeDefined()
    expect(mails).toHaveLength(1)

    const page = await request(app)
      .get(`${location.pathname}${location.search}`)
      .set("Cookie", cookieHeader(second.jar))
    expect(page.status).toBe(200)
    expect(page.text).not.toContain("Too many attempts")
    expect(page.text).not.toContain("We sent a code")
    expect(page.text).toContain("We couldn&#39;t send a code to")
    expect(page.text).toContain("Ask for a new one in 2 minutes.")

    // After the window, "Send a new code" sends one, and that code signs in.
    jest.setSystemTime(Date.now() + (retry + 1) * 1000)
    const resent = await post(app, "/auth/two-factor", second.jar, { resend: "1" })
    expect(path(resent.res)).toBe("/auth/two-factor?sent=1")
    expect(mails).toHaveLength(2)
    const done = await post(app, "/auth/two-factor", resent.jar, { code: mails[1]!.code! })
    expect(path(done.res)).toBe("/dashboard")
    expect(done.jar[SESSION]).toBeDefined()
  })

  it("a wrong password over the same limit is still refused as a wrong password", async () => {
    const { app } = makeApp(true)
    await password(app)
    const wrong = await post(app, "/auth/callback/credentials", {}, { username: "gus", password: "nope" })
    expect(path(wrong.res)).toMatch(/error=CredentialsSignin/)
    expect(wrong.jar[PENDING]).toBeUndefined()
  })
})
