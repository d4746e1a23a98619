// E.2 rule 2: throttling, not permanent lockout. Besides 10 failures per 15 minutes, an account's consecutive failures
// are capped at 100 per 24 hours; a success or `resetRateLimit({ identifier })` (the app's password reset) clears both.
import express from "express"
import { Gatehouse } from "../../lib/express"
import { Gatehouse as WebGatehouse } from "../../lib/web"
import Credentials from "../../lib/providers/credentials"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { fakeDateOnly } from "../fixtures/clock"
import { csrfOf, postSignIn, SECRET } from "./harness"

afterEach(() => jest.useRealTimers())

const START = Date.parse("2026-11-23T00:00:00Z")
const QUARTER = 15 * 60 * 1000

function app() {
  const authorized: string[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    rateLimit: { enabled: true, rules: { "credentials-ip": false } },
    providers: [
      Credentials({
        credentials: { email: {}, password: {} },
        authorize: async (c) => {
          authorized.push(String(c.email))
          return c.password === "right" ? { id: "ada", email: String(c.email) } : null
        },
      }),
    ],
  }
  const gh = Gatehouse(config)
  const server = express()
  server.use("/auth", gh.handlers)
  return { server, gh, authorized }
}

/** 10 failures in each of `quarters` successive 15-minute windows. */
async function fail(server: express.Express, quarters: number, from = 0) {
  const csrf = await csrfOf(server)
  for (let q = from; q < from + quarters; q += 1) {
    jest.setSystemTime(START + q * QUARTER + 1)
    for (let i = 0; i < 10; i += 1) await postSignIn(server, csrf, { email: "ada@example.com", password: "wrong" })
  }
  return csrf
}

describe("the 100-failure cap", () => {
  it("after 100 consecutive failures authorize is no longer called, in any 15-minute window, until reset", async () => {
    fakeDateOnly(START)
    const { server, gh, authorized } = app()
    const csrf = await fail(server, 10)
    expect(authorized).toHaveLength(100)

    jest.setSystemTime(START + 10 * QUARTER + 1)
    const capped = await postSignIn(server, csrf, { email: "ada@example.com", password: "right" })
    expect(capped.headers.location).toMatch(/\/auth\/signin\?error=RateLimited&retry=\d+$/)
    const retry = Number(capped.headers["retry-after"])
    expect(retry).toBeGreaterThan(15 * 60)
    expect(retry).toBeLessThanOrEqual(24 * 60 * 60)
    expect(authorized).toHaveLength(100)

    // The owner resets their password; the app clears the counters.
    await gh.resetRateLimit({ identifier: " ADA@example.com" })
    const after = await postSignIn(server, csrf, { email: "ada@example.com", password: "right" })
    expect(after.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(authorized).toHaveLength(101)
  })

  it("a success before the cap starts the count over", async () => {
    fakeDateOnly(START)
    const { server, authorized } = app()
    const csrf = await fail(server, 9)
    jest.setSystemTime(START + 9 * QUARTER + 1)
    for (let i = 0; i < 9; i += 1) await postSignIn(server, csrf, { email: "ada@example.com", password: "wrong" })
    const success = await postSignIn(server, csrf, { email: "ada@example.com", password: "right" })
    expect(success.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    // 99 failures, a success, then 10 more windows of failures are allowed to reach authorize again.
    await fail(server, 1, 10)
    expect(authorized).toHaveLength(99 + 1 + 10)
  })

  it("turning credentials-account off turns the cap off too", async () => {
    const authorized: string[] = []
    const gh = Gatehouse({
      secret: SECRET,
      trustHost: true,
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      rateLimit: { enabled: true, rules: { "credentials-ip": false, "credentials-account": false } },
      providers: [
        Credentials({
          credentials: { email: {}, password: {} },
          authorize: async (c) => {
            authorized.push(String(c.email))
            return null
          },
        }),
      ],
    })
    const server = express()
    server.use("/auth", gh.handlers)
    const csrf = await csrfOf(server)
    for (let i = 0; i < 110; i += 1) await postSignIn(server, csrf, { email: "ada@example.com", password: "wrong" })
    expect(authorized).toHaveLength(110)
  })

  it("resetRateLimit refuses an empty identifier with a TypeError; the web flavour has it too", async () => {
    const gh = WebGatehouse({ secret: SECRET, trustHost: true, providers: [Credentials({ authorize: () => null })] })
    await expect(gh.resetRateLimit({ identifier: "   " })).rejects.toMatchObject({
      name: "TypeError",
      code: "ERR_INVALID_ARG_VALUE",
    })
    await expect(gh.resetRateLimit({ identifier: "ada@example.com" })).resolves.toBeUndefined()
  })
})
