// passwords.md section 14, P16 on SQLite, and the same flow (sign-up, verify, sign-in, reset with database sessions)
// on PostgreSQL and Redis: storage is per driver, the flows are not.
import Redis from "ioredis"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { confirmFormOf } from "../fixtures/magic-link"
import { postgresAdapterInFreshSchema } from "../fixtures/postgres-adapter"
import { sqliteAdapterInTempDir } from "../fixtures/sqlite-adapter"
import { describeWithService, POSTGRES, randomSuffix, REDIS, REDIS_URL } from "../adapters/services"
import { passwordApp, type PasswordApp } from "./harness"

/** Sign-up, the verification link, sign-out, sign-in, then a reset that ends the session (database strategy). */
async function fullFlow(app: PasswordApp, email: string): Promise<void> {
  const browser = app.browser()
  const signUp = await browser.form("/auth/signup", { email, password: "driver password 1" })
  expect(signUp.headers.location).toContain("/auth/verify-request?provider=password&type=signup")
  await app.waitForMail("verify", 1)
  const link = new URL(app.mail.verify[0]!.url)
  const page = await browser.get(`${link.pathname}${link.search}`)
  expect((await browser.form("/auth/verify-email", confirmFormOf(page.text).fields)).status).toBe(302)
  expect((await browser.session())?.user?.email).toBe(email)
  const other = app.browser()
  expect((await other.signIn(email, "driver password 1")).headers.location).not.toContain("error")
  expect((await other.session())?.user?.email).toBe(email)

  await browser.form("/auth/forgot-password", { email })
  await app.waitForMail("reset", 1)
  const reset = new URL(app.mail.reset[0]!.url)
  const resetPage = await browser.get(`${reset.pathname}${reset.search}`)
  expect(resetPage.status).toBe(200)
  const done = await browser.form("/auth/reset-password", {
    token: reset.searchParams.get("token")!,
    email,
    password: "driver password 2",
  })
  expect(done.headers.location).toContain("/auth/signin?reset=1")
  expect(await other.session()).toBeNull()
  expect((await app.browser().signIn(email, "driver password 1")).headers.location).toContain("CredentialsSignin")
  expect((await app.browser().signIn(email, "driver password 2")).headers.location).not.toContain("error")
}

describe("P16 SQLite adapter (a file in a temp folder)", () => {
  it("stores the row in accounts and never the mailed token", async () => {
    const { adapter, teardown } = sqliteAdapterInTempDir("gatehouse-password")
    const app = await passwordApp({ adapter, config: { session: { strategy: "database" } } })
    try {
      await fullFlow(app, "sqlite@example.test")
      const user = await adapter.getUserByEmail("sqlite@example.test")
      const row = await adapter.getPasswordAccount(user!.id)
      expect(row).toMatchObject({ type: "password", provider: "password", providerAccountId: user!.id })
      expect(row!.passwordHash).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$/)
      // The adapter answers the generic account without the hash.
      expect(await adapter.getAccount(user!.id, "password")).not.toHaveProperty("passwordHash")
      // No verification-token row holds a mailed token, and the used ones are gone.
      const mailed = [...app.mail.verify, ...app.mail.reset].map((m) => m.token as string)
      for (const token of mailed) {
        await expect(
          adapter.useVerificationToken({ identifier: "gatehouse:verify-email:sqlite@example.test", token }),
        ).resolves.toBeNull()
      }
    } finally {
      await app.close()
      await teardown()
    }
  })

  it("SQL: the accounts row's columns, and no verification_tokens row left or holding a mailed token", async () => {
    const Database = (await import("better-sqlite3")).default
    const { mkdtempSync, rmSync } = await import("node:fs")
    const { join } = await import("node:path")
    const { tmpdir } = await import("node:os")
    const { SQLiteAdapter } = await import("../../lib/storage/sqlite/adapter")
    const dir = mkdtempSync(join(tmpdir(), "gatehouse-password-sql-"))
    const db = new Database(join(dir, "auth.sqlite"))
    const app = await passwordApp({ adapter: SQLiteAdapter(db) })
    try {
      const browser = app.browser()
      await browser.form("/auth/signup", { email: "rows@example.test", password: "rows password 1" })
      await app.waitForMail("verify", 1)
      const mailed = app.mail.verify[0]!.token as string
      const tokens = db.prepare("SELECT * FROM verification_tokens").all() as Array<{ token: string }>
      expect(tokens).toHaveLength(1)
      expect(tokens[0]!.token).not.toContain(mailed)
      const link = new URL(app.mail.verify[0]!.url)
      const page = await browser.get(`${link.pathname}${link.search}`)
      await browser.form("/auth/verify-email", confirmFormOf(page.text).fields)
      expect(db.prepare("SELECT * FROM verification_tokens").all()).toEqual([])
      const user = db.prepare("SELECT id FROM users WHERE email_key = ?").get("rows@example.test") as { id: string }
      const account = db.prepare("SELECT * FROM accounts WHERE user_id = ?").get(user.id) as Record<string, unknown>
      expect(account).toMatchObject({ type: "password", provider: "password", provider_account_id: user.id })
      expect(String(account.password_hash)).toMatch(/^\$scrypt\$/)
      expect(typeof account.password_changed_at).toBe("number")
    } finally {
      await app.close()
      db.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describeWithService(POSTGRES, "PostgreSQL: sign-up, verify, sign-in, reset", () => {
  it("runs the whole flow with database sessions", async () => {
    const { adapter, teardown } = await postgresAdapterInFreshSchema("password_flow")
    const app = await passwordApp({
      adapter: adapter as Required<Adapter>,
      config: { session: { strategy: "database" } },
    })
    try {
      await fullFlow(app, "pg@example.test")
      const user = await adapter.getUserByEmail("pg@example.test")
      expect((await adapter.getPasswordAccount(user!.id))!.passwordChangedAt).toBeInstanceOf(Date)
    } finally {
      await app.close()
      await teardown()
    }
  })
})

describeWithService(REDIS, "Redis: sign-up, verify, sign-in, reset", () => {
  it("runs the whole flow with database sessions", async () => {
    const client = new Redis(REDIS_URL)
    const prefix = `gh-password-${randomSuffix()}:`
    const adapter = RedisAdapter(client, { prefix }) as Required<Adapter>
    const app = await passwordApp({ adapter, config: { session: { strategy: "database" } } })
    try {
      await fullFlow(app, "redis@example.test")
      const user = await adapter.getUserByEmail("redis@example.test")
      const raw = JSON.parse((await client.get(`${prefix}account:password:${encodeURIComponent(user!.id)}`))!)
      expect(raw.passwordHash).toMatch(/^\$scrypt\$/)
      expect(typeof raw.passwordChangedAt).toBe("number")
    } finally {
      await app.close()
      const keys = await client.keys(`${prefix}*`)
      if (keys.length > 0) await client.del(...keys)
      client.disconnect()
    }
  })
})
