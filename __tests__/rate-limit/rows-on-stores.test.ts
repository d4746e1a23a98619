// Issue 14 asks for the rate-limiting rows of next-wave E.3 on the shared stores too: E1, E4, E5 and E7 again with
// the counters in PostgreSQL (`store: "adapter"`) and in Redis (a RedisStore), each test on fresh keys.
import { Pool } from "pg"
import Redis from "ioredis"
import { migrate } from "../../lib/storage/postgres/adapter"
import { PostgresStore } from "../../lib/storage/postgres/store"
import { RedisStore } from "../../lib/storage/redis/store"
import type { AuthConfig, RateLimitOptions } from "../../lib/core/kernel/types"
import Nodemailer from "../../lib/providers/nodemailer"
import { Browser, emailConfig, FROM, ORIGIN } from "../core/email/harness"
import { DATABASE_URL, POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { csrfOf, limitedApp, limitedLocation, postSignIn } from "./harness"

type Shared = () => { rateLimit: RateLimitOptions; config: Partial<AuthConfig> }

const wrong = (email: string) => ({ email, password: "wrong" })

function rows(shared: Shared): void {
  it("E1: authorize runs 10 times; the 11th is RateLimited with Retry-After in [1, 60]", async () => {
    const { app, authorized } = limitedApp(shared())
    const csrf = await csrfOf(app)
    for (let i = 0; i < 10; i += 1) await postSignIn(app, csrf, wrong(`user${i}@example.com`))
    const limited = await postSignIn(app, csrf, wrong("late@example.com"))
    expect(limitedLocation(limited.headers.location).url).toMatch(/\/auth\/signin\?error=RateLimited$/)
    const retryAfter = Number(limited.headers["retry-after"])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(authorized).toHaveLength(10)
  })

  it("E4: 10 failures for ada from 10 IPs, then the right password: refused unseen; bob unaffected", async () => {
    const { rateLimit, config } = shared()
    const { app, authorized } = limitedApp({ rateLimit, config, trustProxy: true })
    const csrf = await csrfOf(app)
    const from = (i: number) => ({ headers: { "X-Forwarded-For": `198.51.100.${i}` } })
    for (let i = 1; i <= 10; i += 1) await postSignIn(app, csrf, wrong("ada@example.com"), from(i))
    const right = { email: "ada@example.com", password: "right" }
    expect((await postSignIn(app, csrf, right, from(11))).headers.location).toMatch(/error=RateLimited/)
    expect(authorized).toHaveLength(10)
    const bob = await postSignIn(app, csrf, { email: "bob@example.com", password: "right" }, from(12))
    expect(bob.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it("E5: 5 email requests for one address: 3 sent, 4 and 5 RateLimited", async () => {
    const { rateLimit, config } = shared()
    const sent: string[] = []
    const email = emailConfig(
      [
        Nodemailer({
          server: "smtp://127.0.0.1:1",
          from: FROM,
          sendVerificationRequest: async (p) => void sent.push(p.identifier),
        }),
      ],
      { ...config, rateLimit: { ...rateLimit, ip: () => "192.0.2.50" } },
    )
    const browser = new Browser(email.config)
    const locations: string[] = []
    for (let i = 0; i < 5; i += 1)
      locations.push(String((await browser.requestLink("ada@example.com")).headers.get("location")))
    expect(sent).toHaveLength(3)
    expect(locations.slice(0, 3)).toEqual(Array(3).fill(`${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`))
    expect(locations.slice(3).every((l) => l.startsWith(`${ORIGIN}/auth/signin?error=RateLimited&retry=`))).toBe(true)
  })

  it("E7: trailing and doubled slashes count in the canonical bucket", async () => {
    const { app, authorized } = limitedApp(shared())
    const csrf = await csrfOf(app)
    const paths = ["/auth/callback/credentials/", "/auth/callback//credentials", "/auth/callback/credentials"]
    for (let i = 0; i < 11; i += 1) {
      await postSignIn(app, csrf, wrong(`user${i}@example.com`), { path: paths[i % paths.length] })
    }
    expect(authorized).toHaveLength(10)
  })
}

describeWithService(POSTGRES, "E.3 rate rows on PostgreSQL", () => {
  const schema = `gatehouse_rlrows_${randomSuffix()}`
  const pool = new Pool({ connectionString: DATABASE_URL, max: 6 })
  beforeAll(async () => {
    await migrate(pool, { schema })
  })
  beforeEach(async () => {
    await pool.query(`DELETE FROM "${schema}".gatehouse_kv`)
  })
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await pool.end()
  })
  rows(() => ({ rateLimit: { enabled: true, store: "adapter" }, config: { store: PostgresStore(pool, { schema }) } }))
})

describeWithService(REDIS, "E.3 rate rows on Redis", () => {
  const prefix = `gatehouse-rlrows-${randomSuffix()}:`
  const client = new Redis(REDIS_URL, { lazyConnect: true })
  let n = 0
  afterAll(async () => {
    const keys = await client.keys(`${prefix}*`)
    if (keys.length > 0) await client.del(...keys)
    await client.quit()
  })
  rows(() => ({
    rateLimit: { enabled: true, store: RedisStore(client, { prefix: `${prefix}${(n += 1)}:` }) },
    config: {},
  }))
})
