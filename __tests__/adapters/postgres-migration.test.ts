// docs/guide/migrating-from-authjs.md: its SQL copies @auth/pg-adapter's tables into Gatehouse's schema, and a session made
// by Auth.js keeps working (same cookie, same token) through Express afterwards.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import express from "express"
import { Pool } from "pg"
import request from "supertest"
import { ExpressAuth } from "../../lib"
import { PostgresAdapter, migrate } from "../../lib/storage/postgres/adapter"
import Credentials from "../../lib/providers/credentials"
import { DATABASE_URL, POSTGRES, describeWithService, randomSuffix } from "./services"

const root = join(__dirname, "../..")

/** The ```sql block of the migration guide, with its schemas renamed to the test's. */
function migrationSql(source: string, target: string): string {
  const doc = readFileSync(join(root, "docs/guide/migrating-from-authjs.md"), "utf8")
  const blocks = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!)
  expect(blocks).toHaveLength(1)
  return blocks[0]!.replace(/\bpublic\./g, `"${source}".`).replace(/\bgatehouse\./g, `"${target}".`)
}

describeWithService(POSTGRES, "migrating from @auth/pg-adapter's schema", () => {
  const source = `authjs_src_${randomSuffix()}`
  const target = `gatehouse_dst_${randomSuffix()}`
  const pool = new Pool({ connectionString: DATABASE_URL, max: 4 })
  const tomorrow = new Date(Date.now() + 24 * 3600 * 1000)

  beforeAll(async () => {
    const client = await pool.connect()
    try {
      await client.query(`CREATE SCHEMA "${source}"; SET search_path TO "${source}"`)
      await client.query(readFileSync(join(root, "__tests__/fixtures/authjs/pg-adapter-schema.sql"), "utf8"))
      await client.query(
        `INSERT INTO users (name, email, "emailVerified", image) VALUES ('Ada', 'ada@example.com', now(), NULL),
           ('Grace', 'grace@example.com', NULL, 'https://img.test/g.png')`,
      )
      await client.query(
        `INSERT INTO accounts ("userId", type, provider, "providerAccountId", access_token, expires_at, token_type, scope)
           VALUES (1, 'oidc', 'github', 'gh-1', 'at-1', 1700000000, 'bearer', 'read:user')`,
      )
      await client.query(
        `INSERT INTO sessions ("userId", expires, "sessionToken") VALUES (1, $1, 'token-live'), (2, now() - interval '1 day', 'token-old')`,
        [tomorrow],
      )
      await client.query("RESET search_path")
    } finally {
      client.release()
    }
    await migrate(pool, { schema: target })
    await pool.query(migrationSql(source, target))
  })

  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${source}" CASCADE; DROP SCHEMA IF EXISTS "${target}" CASCADE`)
    await pool.end()
  })

  it("copies users, accounts and live sessions; expired sessions stay behind", async () => {
    const adapter = PostgresAdapter(pool, { schema: target })
    expect(await adapter.getUserByEmail("GRACE@example.com")).toMatchObject({ id: "2", name: "Grace" })
    expect(await adapter.getUserByAccount({ provider: "github", providerAccountId: "gh-1" })).toMatchObject({
      id: "1",
      email: "ada@example.com",
    })
    const live = await adapter.getSessionAndUser("token-live")
    expect(live?.user).toMatchObject({ id: "1", name: "Ada" })
    expect(live?.session.expires.getTime()).toBe(tomorrow.getTime())
    expect(await adapter.getSessionAndUser("token-old")).toBeNull()
  })

  it("the browser's Auth.js session cookie is still signed in through Express", async () => {
    const app = express()
    const config = {
      secret: "migration-test-secret-0123456789abcdef",
      trustHost: true,
      adapter: PostgresAdapter(pool, { schema: target }),
      providers: [Credentials({ authorize: () => null })],
    }
    app.use("/auth", ExpressAuth(config))
    const signedIn = await request(app).get("/auth/session").set("Cookie", "authjs.session-token=token-live")
    expect(signedIn.status).toBe(200)
    expect(signedIn.body).toMatchObject({ user: { name: "Ada", email: "ada@example.com" } })
    const old = await request(app).get("/auth/session").set("Cookie", "authjs.session-token=token-old")
    expect(old.body).toBeNull()
  })
})
