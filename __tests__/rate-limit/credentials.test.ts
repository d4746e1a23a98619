// next-wave E1, E4, E6 (memory store), E7: the credentials rules through a real Express app, plus the answer shapes,
// `events.rateLimited`, the draft-10 headers, rule overrides and the production-only default.
import express from "express"
import request from "supertest"
import { Gatehouse } from "../../lib/express"
import { MemoryStore } from "../../lib/storage/memory/store"
import type { RateLimitOptions } from "../../lib/core/kernel/types"
import { fakeDateOnly } from "../fixtures/clock"
import { csrfOf, limitedApp, limitedLocation, postSignIn } from "./harness"

afterEach(() => jest.useRealTimers())

const wrong = (email = "ada@example.com") => ({ email, password: "wrong" })

describe("E1: credentials-ip, 10 per 60 s per IP", () => {
  it("authorize runs 10 times; the 11th is sent to the sign-in page with RateLimited and Retry-After", async () => {
    const { app, authorized } = limitedApp()
    const csrf = await csrfOf(app)
    for (let i = 0; i < 10; i += 1) {
      // Distinct accounts, so only the IP rule can be what stops the 11th.
      const response = await postSignIn(app, csrf, wrong(`user${i}@example.com`))
      expect(response.status).toBe(302)
      expect(response.headers.location).toMatch(/\/auth\/signin\?error=CredentialsSignin&code=credentials$/)
      expect(response.headers["retry-after"]).toBeUndefined()
    }
    expect(authorized).toHaveLength(10)

    const limited = await postSignIn(app, csrf, { email: "bob@example.com", password: "right" })
    expect(limited.status).toBe(302)
    const { url, retry } = limitedLocation(limited.headers.location)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/signin\?error=RateLimited$/)
    const retryAfter = Number(limited.headers["retry-after"])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(retry).toBe(retryAfter)
    // No session for a refused request, even with the right password.
    expect(([] as string[]).concat(limited.headers["set-cookie"] ?? []).join()).not.toMatch(/session-token=[^;]/)
    expect(authorized).toHaveLength(10)
  })

  it("with X-Auth-Return-Redirect the refusal is 200 {url} plus Retry-After (the Auth.js client contract)", async () => {
    const { app, authorized } = limitedApp()
    const csrf = await csrfOf(app)
    for (let i = 0; i < 10; i += 1) await postSignIn(app, csrf, wrong(`user${i}@example.com`))
    const response = await postSignIn(app, csrf, wrong(), { headers: { "X-Auth-Return-Redirect": "1" } })
    expect(response.status).toBe(200)
    expect(response.headers["content-type"]).toMatch(/^application\/json/)
    const body = response.body as { url: string }
    expect(limitedLocation(body.url).url).toMatch(/\/auth\/signin\?error=RateLimited$/)
    expect(Number(response.headers["retry-after"])).toBeGreaterThanOrEqual(1)
    expect(authorized).toHaveLength(10)
  })

  it("a new window opens after 60 s", async () => {
    fakeDateOnly(Date.parse("2026-11-23T10:00:00Z"))
    const { app, authorized } = limitedApp()
    const csrf = await csrfOf(app)
    for (let i = 0; i < 11; i += 1) await postSignIn(app, csrf, wrong(`user${i}@example.com`))
    expect(authorized).toHaveLength(10)
    jest.setSystemTime(Date.parse("2026-11-23T10:00:59Z"))
    expect(limitedLocation((await postSignIn(app, csrf, wrong("late@example.com"))).headers.location).url).toMatch(
      /error=RateLimited$/,
    )
    jest.setSystemTime(Date.parse("2026-11-23T10:01:00.001Z"))
    const fresh = await postSignIn(app, csrf, { email: "ada@example.com", password: "right" })
    expect(fresh.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(authorized).toHaveLength(11)
  })

  it("events.rateLimited fires once per key per window, with a hashed key and the IP", async () => {
    const { app, limited } = limitedApp()
    const csrf = await csrfOf(app)
    for (let i = 0; i < 15; i += 1) await postSignIn(app, csrf, wrong(`user${i}@example.com`))
    expect(limited).toHaveLength(1)
    expect(limited[0]).toMatchObject({ rule: "credentials-ip", ip: "127.0.0.1" })
    expect(limited[0]!.key).toMatch(/^rl:credentials-ip:[\w-]{43}$/)
    expect(limited[0]!.key).not.toContain("127.0.0.1")
  })

  it('headers: "draft-ietf-10" adds RateLimit-Policy and RateLimit; false sends none', async () => {
    const draft = limitedApp({ rateLimit: { headers: "draft-ietf-10" } })
    let csrf = await csrfOf(draft.app)
    for (let i = 0; i < 10; i += 1) await postSignIn(draft.app, csrf, wrong(`user${i}@example.com`))
    const response = await postSignIn(draft.app, csrf, wrong())
    const retry = response.headers["retry-after"]
    expect(response.headers["ratelimit-policy"]).toBe('"credentials-ip";q=10;w=60')
    expect(response.headers.ratelimit).toBe(`"credentials-ip";r=0;t=${retry}`)

    const none = limitedApp({ rateLimit: { headers: false } })
    csrf = await csrfOf(none.app)
    for (let i = 0; i < 10; i += 1) await postSignIn(none.app, csrf, wrong(`user${i}@example.com`))
    const quiet = await postSignIn(none.app, csrf, wrong())
    expect(quiet.headers.location).toMatch(/error=RateLimited/)
    expect(quiet.headers["retry-after"]).toBeUndefined()
    expect(quiet.headers.ratelimit).toBeUndefined()
  })
})

describe("E4: credentials-account, 10 failures per 900 s, a success resets", () => {
  it("10 wrong passwords for ada from 10 IPs, then the right one: refused before authorize; bob unaffected", async () => {
    const { app, authorized, limited } = limitedApp({ trustProxy: true })
    const csrf = await csrfOf(app)
    for (let i = 1; i <= 10; i += 1) {
      const response = await postSignIn(app, csrf, wrong(), { headers: { "X-Forwarded-For": `198.51.100.${i}` } })
      expect(response.headers.location).toMatch(/error=CredentialsSignin/)
    }
    const eleventh = await postSignIn(
      app,
      csrf,
      { email: "ada@example.com", password: "right" },
      { headers: { "X-Forwarded-For": "198.51.100.11" } },
    )
    expect(limitedLocation(eleventh.headers.location).url).toMatch(/\/auth\/signin\?error=RateLimited$/)
    const retryAfter = Number(eleventh.headers["retry-after"])
    expect(retryAfter).toBeGreaterThan(60)
    expect(retryAfter).toBeLessThanOrEqual(900)
    expect(authorized.filter((email) => email === "ada@example.com")).toHaveLength(10)
    expect(limited.map((m) => m.rule)).toEqual(["credentials-account"])

    // The address is the key, case and spaces aside.
    const shouted = await postSignIn(
      app,
      csrf,
      { email: "  ADA@Example.com ", password: "right" },
      { headers: { "X-Forwarded-For": "198.51.100.12" } },
    )
    expect(shouted.headers.location).toMatch(/error=RateLimited/)

    const bob = await postSignIn(
      app,
      csrf,
      { email: "bob@example.com", password: "right" },
      { headers: { "X-Forwarded-For": "198.51.100.13" } },
    )
    expect(bob.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it("a success before the 10th failure resets the count", async () => {
    const { app, authorized } = limitedApp({ trustProxy: true })
    const csrf = await csrfOf(app)
    const from = (i: number) => ({ headers: { "X-Forwarded-For": `203.0.113.${i}` } })
    for (let i = 1; i <= 9; i += 1) await postSignIn(app, csrf, wrong(), from(i))
    const success = await postSignIn(app, csrf, { email: "ada@example.com", password: "right" }, from(10))
    expect(success.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    for (let i = 11; i <= 20; i += 1) {
      expect((await postSignIn(app, csrf, wrong(), from(i))).headers.location).toMatch(/error=CredentialsSignin/)
    }
    expect((await postSignIn(app, csrf, wrong(), from(21))).headers.location).toMatch(/error=RateLimited/)
    expect(authorized).toHaveLength(20)
  })
})

describe("E6 (memory store): 100 parallel credential POSTs from one IP", () => {
  it("exactly 10 reach authorize; the other 90 are refused", async () => {
    const { app, authorized } = limitedApp()
    const csrf = await csrfOf(app)
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => postSignIn(app, csrf, wrong(`user${i}@example.com`))),
    )
    expect(authorized).toHaveLength(10)
    expect(responses.filter((r) => /error=RateLimited/.test(String(r.headers.location)))).toHaveLength(90)
  })
})

describe("E7: the bucket is the parsed route, not the raw path", () => {
  it("trailing and doubled slashes after the base count in the canonical bucket", async () => {
    const { app, authorized } = limitedApp()
    const csrf = await csrfOf(app)
    const paths = [
      "/auth/callback/credentials",
      "/auth/callback/credentials/",
      "/auth/callback//credentials",
      "/auth/callback/credentials//",
      "/auth/callback//credentials/",
      "/AUTH/callback/credentials",
    ]
    for (let i = 0; i < 11; i += 1) {
      await postSignIn(app, csrf, wrong(`user${i}@example.com`), { path: paths[i % paths.length] })
    }
    expect(authorized).toHaveLength(10)
    const canonical = await postSignIn(app, csrf, wrong("late@example.com"))
    expect(canonical.headers.location).toMatch(/error=RateLimited/)
  })

  it("`//auth//callback/credentials/` is not a way around the bucket: it never reaches authorize", async () => {
    const { app, authorized } = limitedApp()
    const csrf = await csrfOf(app)
    for (let i = 0; i < 11; i += 1) {
      const response = await postSignIn(app, csrf, wrong(`user${i}@example.com`), {
        path: "//auth//callback/credentials/",
      })
      expect(response.status).toBe(404)
    }
    expect(authorized).toHaveLength(0)
  })
})

describe("two mounts of one app (each its own Gatehouse(config))", () => {
  // The key is the rule, the parsed action and provider and the subject: the mount path is not in it.
  function twoMounts(rateLimit: RateLimitOptions | undefined) {
    const limited = limitedApp({ rateLimit })
    const app = express()
    app.use("/auth", Gatehouse(limited.config).handlers)
    app.use("/api/auth", Gatehouse(limited.config).handlers)
    return { app, authorized: limited.authorized }
  }

  it("sharing a store, they count in one bucket: a second mount does not double the budget", async () => {
    const { app, authorized } = twoMounts({ store: MemoryStore() })
    const csrf = await csrfOf(app)
    for (let i = 0; i < 10; i += 1) {
      const path = i % 2 === 0 ? "/auth/callback/credentials" : "/api/auth/callback/credentials"
      await postSignIn(app, csrf, wrong(`user${i}@example.com`), { path })
    }
    expect(authorized).toHaveLength(10)
    for (const path of ["/auth/callback/credentials", "/api/auth/callback/credentials"]) {
      const refused = await postSignIn(app, csrf, wrong("late@example.com"), { path })
      expect(refused.headers.location).toMatch(/error=RateLimited/)
    }
    expect(authorized).toHaveLength(10)
  })

  it('with the default "memory" store each instance counts alone (as each process does)', async () => {
    const { app, authorized } = twoMounts(undefined)
    const csrf = await csrfOf(app)
    for (let i = 0; i < 20; i += 1) {
      const path = i % 2 === 0 ? "/auth/callback/credentials" : "/api/auth/callback/credentials"
      const response = await postSignIn(app, csrf, wrong(`user${i}@example.com`), { path })
      expect(response.headers.location).not.toMatch(/error=RateLimited/)
    }
    expect(authorized).toHaveLength(20)
    const refused = await postSignIn(app, csrf, wrong("late@example.com"), { path: "/api/auth/callback/credentials" })
    expect(refused.headers.location).toMatch(/error=RateLimited/)
  })
})

describe("configuration", () => {
  it("is off by default outside production: 15 wrong passwords all reach authorize", async () => {
    const { app, authorized } = limitedApp({ config: { rateLimit: undefined } })
    const csrf = await csrfOf(app)
    for (let i = 0; i < 15; i += 1) await postSignIn(app, csrf, wrong())
    expect(authorized).toHaveLength(15)
  })

  it("a rule can be changed ({ limit }) or turned off (false)", async () => {
    const strict = limitedApp({ rateLimit: { rules: { "credentials-ip": { limit: 2 } } } })
    let csrf = await csrfOf(strict.app)
    for (let i = 0; i < 3; i += 1) await postSignIn(strict.app, csrf, wrong(`user${i}@example.com`))
    expect(strict.authorized).toHaveLength(2)

    const off = limitedApp({ rateLimit: { rules: { "credentials-ip": false, "credentials-account": false } } })
    csrf = await csrfOf(off.app)
    for (let i = 0; i < 25; i += 1) await postSignIn(off.app, csrf, wrong())
    expect(off.authorized).toHaveLength(25)
  })

  it("GET /session, /csrf and /providers are never limited", async () => {
    const { app } = limitedApp({ rateLimit: { rules: { "credentials-ip": { limit: 1 } } } })
    for (let i = 0; i < 40; i += 1) {
      expect((await request(app).get("/auth/session")).status).toBe(200)
      expect((await request(app).get("/auth/csrf")).status).toBe(200)
      expect((await request(app).get("/auth/providers")).status).toBe(200)
    }
  })
})
