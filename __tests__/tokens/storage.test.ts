// tokens.md section 5 on all four drivers: database bearer sessions are ordinary rows (hashed token); the store keys
// (`at-keys`, the `sess-end` marker) are shared by every instance on the same store, and hold no secret in clear.
import express from "express"
import Redis from "ioredis"
import request from "supertest"
import { Gatehouse } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { hashSessionToken } from "../../lib/core/session/token"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import { postgresAdapterInFreshSchema } from "../fixtures/postgres-adapter"
import { sqliteAdapterInTempDir } from "../fixtures/sqlite-adapter"
import { POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { SECRET } from "../express/apps"

interface Subject {
  adapter: Required<Adapter>
  teardown(): Promise<void>
}

const subjects: Array<[string, () => Promise<Subject>, (title: string, body: () => void) => void]> = [
  [
    "memory",
    async () => ({ adapter: MemoryAdapter() as Required<Adapter>, teardown: async () => undefined }),
    describe,
  ],
  ["SQLite", async () => sqliteAdapterInTempDir("gatehouse-tokens"), describe],
  [
    "PostgreSQL",
    async () => postgresAdapterInFreshSchema("gatehouse_tokens"),
    (title, body) => describeWithService(POSTGRES, title, body),
  ],
  [
    "Redis",
    async () => {
      const prefix = `gatehouse-tokens-${randomSuffix()}:`
      const client = new Redis(REDIS_URL, { lazyConnect: true })
      await client.connect()
      return {
        adapter: RedisAdapter(client, { prefix }) as Required<Adapter>,
        teardown: async () => {
          const keys = await client.keys(`${prefix}*`)
          if (keys.length > 0) await client.del(...keys)
          await client.quit()
        },
      }
    },
    (title, body) => describeWithService(REDIS, title, body),
  ],
]

function instance(adapter: Adapter, strategy: "jwt" | "database") {
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy, bearer: true },
    accessTokens: { audience: "https://api.example.test" },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) =>
          c.username === "alice" && c.password === "alice-pw"
            ? { id: "user-alice", name: "alice", email: "alice@example.test" }
            : null,
      }),
    ],
  }
  const app = express()
  app.use("/auth", Gatehouse(config).handlers)
  return app
}

async function tokenSignIn(app: express.Express): Promise<string> {
  const res = await request(app)
    .post("/auth/callback/credentials")
    .set("X-Auth-Return-Token", "1")
    .send({ username: "alice", password: "alice-pw" })
  expect(res.status).toBe(200)
  return res.body.token as string
}

for (const [name, open, describeFor] of subjects) {
  describeFor(`tokens storage on ${name}`, () => {
    let subject: Subject
    beforeAll(async () => {
      subject = await open()
    })
    afterAll(async () => {
      await subject.teardown()
    })

    test("T1-2 a database bearer session is a row under the token's hash; bearer sign-out deletes it", async () => {
      const app = instance(subject.adapter, "database")
      const token = await tokenSignIn(app)
      expect(await subject.adapter.getSessionAndUser(token)).toBeNull()
      const row = await subject.adapter.getSessionAndUser(hashSessionToken(token))
      expect(row?.user.id).toBe("user-alice")
      const read = await request(app).get("/auth/session").set("Authorization", `Bearer ${token}`)
      expect(read.body.user.name).toBe("alice")
      const out = await request(app).post("/auth/signout").set("Authorization", `Bearer ${token}`)
      expect(out.body).toEqual({ ok: true })
      expect(await subject.adapter.getSessionAndUser(hashSessionToken(token))).toBeNull()
    })

    test("T1-7 a JWT bearer signed out on one instance reads null on another sharing the store", async () => {
      const a = instance(subject.adapter, "jwt")
      const b = instance(subject.adapter, "jwt")
      const token = await tokenSignIn(a)
      expect((await request(b).get("/auth/session").set("Authorization", `Bearer ${token}`)).body.user.name).toBe(
        "alice",
      )
      await request(a).post("/auth/signout").set("Authorization", `Bearer ${token}`)
      const after = await request(b).get("/auth/session").set("Authorization", `Bearer ${token}`)
      expect(after.body).toBeNull()
    })

    test("T3 the generated key set lives in the shared store, sealed: two instances publish the same keys", async () => {
      const a = instance(subject.adapter, "jwt")
      const b = instance(subject.adapter, "jwt")
      const fromA = await request(a).get("/auth/jwks")
      const fromB = await request(b).get("/auth/jwks")
      expect(fromA.body.keys).toHaveLength(1)
      expect(fromB.body.keys).toEqual(fromA.body.keys)
      const [sealed] = await subject.adapter.store.get(["at-keys"])
      expect(typeof sealed).toBe("string")
      expect(sealed!.split(".")).toHaveLength(5)
      expect(sealed).not.toContain(fromA.body.keys[0].x)
    })
  })
}
