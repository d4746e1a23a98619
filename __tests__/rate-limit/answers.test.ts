// The other answer shapes and surfaces: 429 JSON on POST /session (session-update) and POST /backchannel-logout, the
// built-in sign-in page message from `retry`, server-side signIn from Express, and construction-time config errors.
import express from "express"
import request from "supertest"
import { Auth } from "../../lib/core"
import { resolveConfig } from "../../lib/core/kernel/config/resolve"
import { renderSignInPage } from "../../lib/core/kernel/pages"
import { Gatehouse } from "../../lib/express"
import Credentials from "../../lib/providers/credentials"
import { RedisStore } from "../../lib/storage/redis/store"
import type Redis from "ioredis"
import { credentialsConfig, makeRequest } from "../core/helpers"
import { csrfOf, limitedApp, postSignIn, SECRET } from "./harness"

describe('JSON routes answer 429 {"error":"RateLimited"} with Retry-After', () => {
  it("session-update: the 31st POST /session of one session within 60 s", async () => {
    const { app } = limitedApp()
    const csrf = await csrfOf(app)
    const signedIn = await postSignIn(app, csrf, { email: "ada@example.com", password: "right" })
    const session = ([] as string[])
      .concat(signedIn.headers["set-cookie"] ?? [])
      .map((line) => line.split(";")[0]!)
      .find((pair) => pair.startsWith("authjs.session-token="))!
    const cookie = `${csrf.cookie}; ${session}`
    const update = () =>
      request(app)
        .post("/auth/session")
        .set("Cookie", cookie)
        .send({ csrfToken: csrf.token, data: { n: 1 } })
    for (let i = 0; i < 30; i += 1) expect((await update()).status).toBe(200)
    const refused = await update()
    expect(refused.status).toBe(429)
    expect(refused.headers["content-type"]).toMatch(/^application\/json/)
    expect(refused.body).toEqual({ error: "RateLimited" })
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1)
    expect(refused.headers["set-cookie"]).toBeUndefined()
    // Another session (another browser) has its own window; reading the session is never limited.
    expect((await request(app).get("/auth/session").set("Cookie", cookie)).status).toBe(200)
    const other = await csrfOf(app)
    const bob = await postSignIn(app, other, { email: "bob@example.com", password: "right" })
    const bobSession = ([] as string[])
      .concat(bob.headers["set-cookie"] ?? [])
      .map((line) => line.split(";")[0]!)
      .find((pair) => pair.startsWith("authjs.session-token="))!
    const bobUpdate = await request(app)
      .post("/auth/session")
      .set("Cookie", `${other.cookie}; ${bobSession}`)
      .send({ csrfToken: other.token, data: {} })
    expect(bobUpdate.status).toBe(200)
  })

  it("backchannel: the 61st POST /backchannel-logout from one IP within 60 s", async () => {
    const config = credentialsConfig({ rateLimit: { enabled: true, ip: () => "198.51.100.20" } })
    const post = () =>
      Auth(
        makeRequest("/auth/backchannel-logout/credentials", {
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "logout_token=x",
        }),
        config,
      )
    for (let i = 0; i < 60; i += 1) expect((await post()).status).toBe(400)
    const refused = await post()
    expect(refused.status).toBe(429)
    expect(await refused.json()).toEqual({ error: "RateLimited" })
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/)
  })
})

describe("the sign-in page message", () => {
  const page = (query: string) => Auth(makeRequest(`/auth/signin${query}`), credentialsConfig())

  it.each([
    ["?error=RateLimited&retry=600", "Too many attempts. Try again in 10 minutes."],
    ["?error=RateLimited&retry=61", "Too many attempts. Try again in 2 minutes."],
    ["?error=RateLimited&retry=60", "Too many attempts. Try again in 1 minute."],
    ["?error=RateLimited&retry=1", "Too many attempts. Try again in 1 minute."],
    ["?error=RateLimited", "Too many attempts. Try again later."],
    ["?error=RateLimited&retry=soon%3Cb%3E", "Too many attempts. Try again later."],
    ["?error=RateLimited&retry=-5", "Too many attempts. Try again later."],
  ])("%s → %s", async (query, message) => {
    const html = await (await page(query)).text()
    expect(html).toContain(`<div class="error" role="alert"><p>${message}</p></div>`)
  })

  it("a huge retry is capped at a day", () => {
    const { html } = renderSignInPage({
      providers: [],
      csrfToken: "t",
      error: "RateLimited",
      retry: "999999",
      theme: {},
    })
    expect(html).toContain("Try again in 1440 minutes.")
  })

  it("a custom sign-in page receives error and retry", async () => {
    const response = await Auth(
      makeRequest("/auth/signin?error=RateLimited&retry=42"),
      credentialsConfig({ pages: { signIn: "/login" } }),
    )
    const location = new URL(String(response.headers.get("location")), "https://app.example")
    expect(location.pathname).toBe("/login")
    expect(location.searchParams.get("error")).toBe("RateLimited")
    expect(location.searchParams.get("retry")).toBe("42")
  })
})

describe("server-side signIn (Express) counts against the same rules, with req.ip", () => {
  it("the 11th signIn(req, res, 'credentials') from one IP fails with RateLimited (status 429)", async () => {
    let calls = 0
    const { handlers, signIn } = Gatehouse({
      secret: SECRET,
      trustHost: true,
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      rateLimit: { enabled: true },
      providers: [
        Credentials({
          credentials: { email: {}, password: {} },
          authorize: async () => {
            calls += 1
            return null
          },
        }),
      ],
    })
    const app = express()
    app.use(express.json())
    app.use("/auth", handlers)
    app.post("/login", (req, res, next) => {
      signIn(req, res, "credentials", { ...(req.body as Record<string, string>), redirect: false, csrf: false })
        .then((url) => res.json({ url }))
        .catch(next)
    })
    const errors: Array<{ type?: string; status?: number }> = []
    app.use((error: { type?: string; status?: number }, _req: unknown, res: express.Response, _next: unknown) => {
      errors.push(error)
      res.status(error.status ?? 500).json({ error: error.type })
    })
    for (let i = 0; i < 11; i += 1) {
      await request(app)
        .post("/login")
        .send({ email: `user${i}@example.com`, password: "x" })
    }
    expect(calls).toBe(10)
    expect(errors.at(-1)).toMatchObject({ type: "RateLimited", status: 429 })
  })
})

describe("configuration errors at construction", () => {
  const base = { secret: SECRET, trustHost: true, providers: [Credentials({ authorize: () => null })] }

  it.each([
    [{ rules: { "credential-ip": { limit: 1 } } }, 'Unknown rate-limit rule "credential-ip"'],
    [{ rules: { "credentials-ip": { limit: 0 } } }, 'Invalid rate-limit rule "credentials-ip"'],
    [{ rules: { "credentials-ip": { window: 1.5 } } }, 'Invalid rate-limit rule "credentials-ip"'],
    [{ ipv6Subnet: 129 }, "Invalid rateLimit.ipv6Subnet"],
    [{ headers: "x-ratelimit" }, "Invalid rateLimit.headers"],
    [{ store: "adapter" }, 'rateLimit.store "adapter" needs `store` or an adapter with a store'],
    [{ store: {} }, "Invalid rateLimit.store: it needs `hit` and `reset`"],
    [{ ip: "x-forwarded-for" }, "Invalid rateLimit.ip"],
  ])("rateLimit %j → InvalidConfig", (rateLimit, message) => {
    expect(() => resolveConfig({ ...base, rateLimit } as never, { env: {} })).toThrow(message)
  })

  it('"adapter" with a key-value store that cannot count is refused by name', () => {
    const kv = { get: async () => [], set: async () => {}, setMax: async () => 0, consume: async () => true }
    expect(() => resolveConfig({ ...base, store: kv, rateLimit: { store: "adapter" } }, { env: {} })).toThrow(
      'rateLimit.store "adapter": the key-value store has no `hit` and `reset`',
    )
  })

  it('"adapter" uses the config\'s store; enabled defaults to production', () => {
    const store = RedisStore({} as Redis)
    expect(resolveConfig({ ...base, store, rateLimit: { store: "adapter" } }, { env: {} }).rateLimit.enabled).toBe(
      false,
    )
    expect(resolveConfig({ ...base, secret: SECRET }, { env: { NODE_ENV: "production" } }).rateLimit.enabled).toBe(true)
  })
})
