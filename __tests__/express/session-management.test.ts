// Session management through Gatehouse(config) (next-wave E9-E13): list, revoke one, the others, all; admin
// revocation and deleteUser; "sign out everywhere" for JWT sessions through the watermark and the session epoch.
import express from "express"
import type { Express, Request, Response } from "express"
import Redis from "ioredis"
import { postgresAdapterInFreshSchema } from "../fixtures/postgres-adapter"
import { sqliteAdapterInTempDir } from "../fixtures/sqlite-adapter"
import request from "supertest"
import { Gatehouse, type GatehouseInstance } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { hashSessionToken } from "../../lib/core/session/token"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { decode } from "../../lib/jwt"
import Credentials from "../../lib/providers/credentials"
import { POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { fakeDateOnly } from "../fixtures/clock"
import { SECRET, cookieHeader, cookieJar } from "./apps"

const COOKIE = "authjs.session-token"

interface Subject {
  adapter: Required<Adapter>
  teardown(): Promise<void>
}

const subjects: Array<[string, () => Promise<Subject>, typeof describe | typeof describeWithPostgres]> = []
function describeWithPostgres(title: string, body: () => void): void {
  describeWithService(POSTGRES, title, body)
}
function describeWithRedis(title: string, body: () => void): void {
  describeWithService(REDIS, title, body)
}

subjects.push(["memory", async () => ({ adapter: MemoryAdapter(), teardown: async () => undefined }), describe])
subjects.push(["SQLite", async () => sqliteAdapterInTempDir("gatehouse-manage"), describe])
subjects.push(["PostgreSQL", async () => postgresAdapterInFreshSchema("gatehouse_manage"), describeWithPostgres])
subjects.push([
  "Redis",
  async () => {
    const prefix = `gatehouse-manage-${randomSuffix()}:`
    const client = new Redis(REDIS_URL, { lazyConnect: true })
    await client.connect()
    return {
      adapter: RedisAdapter(client, { prefix }),
      teardown: async () => {
        const keys = await client.keys(`${prefix}*`)
        if (keys.length > 0) await client.del(...keys)
        await client.quit()
      },
    }
  },
  describeWithRedis,
])

interface App {
  app: Express
  gatehouse: GatehouseInstance
  signOutEvents: unknown[]
}

function makeApp(adapter: Required<Adapter>, strategy: "database" | "jwt"): App {
  const signOutEvents: unknown[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    events: { signOut: (message) => void signOutEvents.push(message) },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) =>
          c.password === "pw" && typeof c.username === "string"
            ? { id: `user-${c.username}`, name: c.username, email: `${c.username}@example.test` }
            : null,
      }),
    ],
  }
  const gatehouse = Gatehouse(config)
  const app = express()
  app.use(express.json())
  app.use("/auth", gatehouse.handlers)
  const answer =
    (run: (req: Request, res: Response) => Promise<unknown>) =>
    (req: Request, res: Response): void => {
      run(req, res).then(
        (body) => void res.json(body),
        (error: unknown) => void res.status(500).json({ error: String(error) }),
      )
    }
  app.get(
    "/my/sessions",
    answer((req, res) => gatehouse.listSessions(req, res)),
  )
  app.post(
    "/my/sessions/revoke",
    answer(async (req, res) => {
      const ok = await gatehouse.revokeSession(req, res, (req.body as { id: string }).id)
      if (!ok) res.status(404)
      return ok ? { ok: true } : { error: "NotFound" }
    }),
  )
  app.post(
    "/my/sessions/others",
    answer((req, res) => gatehouse.revokeOtherSessions(req, res)),
  )
  app.post(
    "/my/sessions/all",
    answer((req, res) => gatehouse.revokeAllSessions(req, res)),
  )
  app.get(
    "/my/fresh",
    answer((req) => gatehouse.isSessionFresh(req)),
  )
  return { app, gatehouse, signOutEvents }
}

async function signIn(app: Express, username: string, userAgent: string): Promise<Record<string, string>> {
  const csrf = await request(app).get("/auth/csrf")
  const jar = cookieJar({}, csrf.headers["set-cookie"])
  const res = await request(app)
    .post("/auth/callback/credentials")
    .set("Cookie", cookieHeader(jar))
    .set("User-Agent", userAgent)
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, username, password: "pw" })
  if (res.status !== 302) throw new Error(`sign-in failed: ${res.status}`)
  return cookieJar(jar, res.headers["set-cookie"])
}

const session = async (app: Express, jar: Record<string, string>) =>
  request(app).get("/auth/session").set("Cookie", cookieHeader(jar))

for (const [name, open, describeFor] of subjects) {
  describeFor(`session management on ${name}`, () => {
    let subject: Subject
    beforeAll(async () => {
      subject = await open()
    })
    afterAll(async () => subject.teardown())
    afterEach(() => jest.useRealTimers())

    const rows = async (userId: string) => (await subject.adapter.listSessionsByUserId(userId)).length

    /** One user with three database sessions (three devices), the first one is "this device". */
    async function threeDevices() {
      const h = makeApp(subject.adapter, "database")
      const user = `ann-${randomSuffix()}`
      const jars = [
        await signIn(h.app, user, "Laptop/1.0"),
        await signIn(h.app, user, "Phone/2.0"),
        await signIn(h.app, user, "Tablet/3.0"),
      ]
      return { ...h, user, userId: `user-${user}`, jars }
    }

    it("E9: listSessions lists 3 sessions, one current, 22-character ids, and no token or stored hash", async () => {
      const { app, jars } = await threeDevices()
      const res = await request(app).get("/my/sessions").set("Cookie", cookieHeader(jars[0]!))
      expect(res.status).toBe(200)
      const list = res.body as Array<{ id: string; current: boolean; userAgent?: string; createdAt?: number }>
      expect(list).toHaveLength(3)
      expect(list.filter((s) => s.current)).toHaveLength(1)
      expect(list.find((s) => s.current)?.userAgent).toBe("Laptop/1.0")
      expect(list.map((s) => s.userAgent).sort()).toEqual(["Laptop/1.0", "Phone/2.0", "Tablet/3.0"])
      list.forEach((s) => expect(s.id).toMatch(/^[A-Za-z0-9_-]{22}$/))
      list.forEach((s) => expect(typeof s.createdAt).toBe("number"))
      for (const jar of jars) {
        expect(res.text).not.toContain(jar[COOKIE]!)
        expect(res.text).not.toContain(hashSessionToken(jar[COOKIE]!).slice(7))
      }
      const anonymous = await request(app).get("/my/sessions")
      expect(anonymous.body).toBeNull()
    })

    it("E10: revoking another user's id or a random id answers not found and deletes nothing", async () => {
      const { app, jars, userId } = await threeDevices()
      const bob = `bob-${randomSuffix()}`
      const bobJar = await signIn(app, bob, "Bob/1.0")
      const bobsId = (await request(app).get("/my/sessions").set("Cookie", cookieHeader(bobJar))).body[0].id
      for (const id of [bobsId, "A".repeat(22), "", "jwt"]) {
        const res = await request(app).post("/my/sessions/revoke").set("Cookie", cookieHeader(jars[0]!)).send({ id })
        expect(res.status).toBe(404)
        expect(res.body).toEqual({ error: "NotFound" })
      }
      expect(await rows(userId)).toBe(3)
      expect(await rows(`user-${bob}`)).toBe(1)
    })

    it("E11: revoke one other, then the others, then all: rows 3 → 2 → 1 → 0, one signOut event per row", async () => {
      const { app, jars, userId, signOutEvents } = await threeDevices()
      const list = (await request(app).get("/my/sessions").set("Cookie", cookieHeader(jars[0]!))).body as Array<{
        id: string
        current: boolean
      }>
      const other = list.find((s) => !s.current)!
      const one = await request(app)
        .post("/my/sessions/revoke")
        .set("Cookie", cookieHeader(jars[0]!))
        .send({ id: other.id })
      expect(one.body).toEqual({ ok: true })
      expect(await rows(userId)).toBe(2)

      const others = await request(app).post("/my/sessions/others").set("Cookie", cookieHeader(jars[0]!))
      expect(others.body).toBe(true)
      expect(await rows(userId)).toBe(1)
      expect((await session(app, jars[0]!)).body?.user?.name).toMatch(/^ann-/)
      for (const jar of jars.slice(1)) expect((await session(app, jar)).body).toBeNull()

      const all = await request(app).post("/my/sessions/all").set("Cookie", cookieHeader(jars[0]!))
      expect(all.body).toBe(true)
      expect(all.headers["set-cookie"]).toEqual([`${COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`])
      expect(await rows(userId)).toBe(0)
      expect(signOutEvents).toHaveLength(3)
      signOutEvents.forEach((e) => expect(e).toMatchObject({ reason: "revoked", session: { userId } }))
    })

    it("revoking the current session by its id clears its cookie", async () => {
      const { app, jars, userId } = await threeDevices()
      const list = (await request(app).get("/my/sessions").set("Cookie", cookieHeader(jars[1]!))).body as Array<{
        id: string
        current: boolean
      }>
      const res = await request(app)
        .post("/my/sessions/revoke")
        .set("Cookie", cookieHeader(jars[1]!))
        .send({ id: list.find((s) => s.current)!.id })
      expect(res.body).toEqual({ ok: true })
      expect(res.headers["set-cookie"]).toEqual([`${COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`])
      expect(await rows(userId)).toBe(2)
      expect((await session(app, jars[1]!)).body).toBeNull()
    })

    it("E12: JWT: B signs out other devices; A, re-issued 1 s before, is refused and cleared; B stays, newer epoch", async () => {
      const start = Date.now()
      fakeDateOnly(start)
      const { app } = makeApp(subject.adapter, "jwt")
      const user = `jay-${randomSuffix()}`
      let a = await signIn(app, user, "A")
      // GET /session re-issues a cookie once `updateAge` (one day) has passed since its iat (issue 16).
      const day = 86_400_000
      jest.setSystemTime(start + day + 60_000)
      const b = await signIn(app, user, "B")
      // A's cookie is re-issued (a new iat) one second before B's call.
      jest.setSystemTime(start + day + 120_000)
      const refreshed = await session(app, a)
      a = cookieJar(a, refreshed.headers["set-cookie"])
      const aPayload = await decode({ token: a[COOKIE]!, secret: SECRET, salt: COOKIE })
      expect(aPayload?.iat).toBe(Math.floor((start + day + 120_000) / 1000))

      jest.setSystemTime(start + day + 121_000)
      const others = await request(app).post("/my/sessions/others").set("Cookie", cookieHeader(b))
      expect(others.body).toBe(true)
      const newB = cookieJar(b, others.headers["set-cookie"])
      const bPayload = await decode({ token: newB[COOKIE]!, secret: SECRET, salt: COOKIE })
      expect((bPayload?.__gh as { se: number }).se).toBe(start + day + 121_001)

      jest.setSystemTime(start + day + 122_000)
      const refused = await session(app, a)
      expect(refused.body).toBeNull()
      const lines = (refused.headers["set-cookie"] as unknown as string[]).filter((l) => l.startsWith(`${COOKIE}=`))
      expect(lines).toEqual([`${COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`])
      expect((await session(app, newB)).body?.user?.name).toBe(user)
      // A later sign-in is unaffected by the watermark.
      const later = await signIn(app, user, "C")
      expect((await session(app, later)).body?.user?.name).toBe(user)
    })

    it("JWT: revokeAllSessions ends the current cookie too, and the sessions list is only the current one", async () => {
      const { app } = makeApp(subject.adapter, "jwt")
      const user = `jill-${randomSuffix()}`
      const a = await signIn(app, user, "A")
      const listed = await request(app).get("/my/sessions").set("Cookie", cookieHeader(a))
      expect(listed.body).toEqual([
        { id: "jwt", current: true, expires: expect.any(Number), createdAt: expect.any(Number) },
      ])
      const all = await request(app).post("/my/sessions/all").set("Cookie", cookieHeader(a))
      expect(all.body).toBe(true)
      expect((await session(app, a)).body).toBeNull()
    })

    it("E13: deleteUser leaves no database session, and a JWT of that user reads as null", async () => {
      const db = makeApp(subject.adapter, "database")
      const user = `del-${randomSuffix()}`
      const jar = await signIn(db.app, user, "X")
      await signIn(db.app, user, "Y")
      const jwt = makeApp(subject.adapter, "jwt")
      const jwtJar = await signIn(jwt.app, user, "Z")
      expect((await session(jwt.app, jwtJar)).body?.user?.name).toBe(user)

      expect(await db.gatehouse.deleteUser(`user-${user}`)).toMatchObject({ id: `user-${user}` })
      expect(await rows(`user-${user}`)).toBe(0)
      expect((await session(db.app, jar)).body).toBeNull()
      expect((await session(jwt.app, jwtJar)).body).toBeNull()
      expect(await subject.adapter.getUser(`user-${user}`)).toBeNull()
    })

    it("revokeUserSessions deletes every row of the user and counts them; other users keep theirs", async () => {
      const { gatehouse, userId, app } = await threeDevices()
      const other = await signIn(app, `oz-${randomSuffix()}`, "O")
      await expect(gatehouse.revokeUserSessions(userId)).resolves.toBe(3)
      expect(await rows(userId)).toBe(0)
      expect((await session(app, other)).body).not.toBeNull()
    })

    it("freshness: a session is fresh for session.freshAge (900 s) after sign-in, in both strategies", async () => {
      const start = Date.now()
      fakeDateOnly(start)
      for (const strategy of ["database", "jwt"] as const) {
        jest.setSystemTime(start)
        const { app } = makeApp(subject.adapter, strategy)
        const jar = await signIn(app, `fresh-${randomSuffix()}`, "F")
        jest.setSystemTime(start + 899_000)
        expect((await request(app).get("/my/fresh").set("Cookie", cookieHeader(jar))).body).toBe(true)
        jest.setSystemTime(start + 901_000)
        expect((await request(app).get("/my/fresh").set("Cookie", cookieHeader(jar))).body).toBe(false)
        expect((await request(app).get("/my/fresh")).body).toBe(false)
      }
    })
  })
}
