// Two-factor sign-in acceptance tests T1-T8 (wave-3 two-factor spec section 11), through Express with credentials
// users, the memory adapter, and both session strategies. Codes are computed here from the secret enableTotp returns
// (RFC 6238 on node:crypto), checked first against the RFC's vectors.
import { createHmac } from "node:crypto"
import express from "express"
import type { Express, Request, Response } from "express"
import request from "supertest"
import { Gatehouse, type GatehouseInstance } from "../../lib"
import type { AuthConfig, TwoFactorOptions } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { fakeDateOnly } from "../fixtures/clock"
import Redis from "ioredis"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import { postgresAdapterInFreshSchema } from "../fixtures/postgres-adapter"
import { sqliteAdapterInTempDir } from "../fixtures/sqlite-adapter"
import { POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { SECRET, cookieHeader, cookieJar } from "./apps"

type Jar = Record<string, string>
const SESSION = "authjs.session-token"
const PENDING = "gatehouse.two-factor"
const TRUST = "gatehouse.two-factor-trust"
/** A redirect's target without the test server's origin (supertest picks a port per request). */
const loc = (res: request.Response): string =>
  String(res.headers.location ?? "").replace(/^http:\/\/127\.0\.0\.1:\d+/, "")

function base32Decode(text: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
  let bits = ""
  for (const c of text) bits += alphabet.indexOf(c).toString(2).padStart(5, "0")
  const bytes: number[] = []
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2))
  return Buffer.from(bytes)
}

/** RFC 6238 TOTP, SHA-1, 6 digits, 30 s, written independently of the library. */
function totpAt(key: Buffer, unixSeconds: number): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(unixSeconds / 30)))
  const mac = createHmac("sha1", key).update(counter).digest()
  const o = mac[19]! & 15
  const bin = mac.readUInt32BE(o) & 0x7fffffff
  return String(bin % 1_000_000).padStart(6, "0")
}
const codeAtStep = (secret: string, offset: number) => totpAt(base32Decode(secret), Date.now() / 1000 + offset * 30)

const USERS: Record<string, { password: string; id: string; email: string; name: string }> = {
  alice: { password: "wonderland", id: "user-alice", email: "alice@example.test", name: "Alice" },
  bob: { password: "builder", id: "user-bob", email: "bob@example.test", name: "Bob" },
}

/** The adapter of the next app: the memory adapter, or a real database's in the suites at the end. */
let adapterFor: () => Required<Adapter> = () => MemoryAdapter()

interface Harness {
  app: Express
  gatehouse: GatehouseInstance
  adapter: Required<Adapter>
  jwtSignIns: number
  signIns: Array<Record<string, unknown>>
  alerts: Array<Record<string, unknown>>
}

function makeApp(
  strategy: "jwt" | "database",
  twoFactor: TwoFactorOptions = { issuer: "Gatehouse Test" },
  extra: Partial<AuthConfig> = {},
): Harness {
  const adapter = adapterFor()
  const h: Harness = { app: express(), gatehouse: undefined as never, adapter, jwtSignIns: 0, signIns: [], alerts: [] }
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy },
    twoFactor,
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    callbacks: {
      jwt: ({ token, trigger }) => {
        if (trigger === "signIn" || trigger === "signUp") h.jwtSignIns++
        return token
      },
    },
    events: {
      signIn: (message) => void h.signIns.push(message as Record<string, unknown>),
      securityAlert: (message) => void h.alerts.push(message as Record<string, unknown>),
    },
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: (c) => {
          const user = USERS[String(c.username)]
          return user && user.password === c.password ? { id: user.id, email: user.email, name: user.name } : null
        },
      }),
    ],
    ...extra,
  }
  h.gatehouse = Gatehouse(config)
  const { app, gatehouse } = h
  app.use(express.json())
  app.use("/auth", gatehouse.handlers)
  const answer =
    (run: (req: Request, res: Response) => Promise<unknown>) =>
    (req: Request, res: Response): void => {
      run(req, res).then(
        (body) => void res.json(body),
        (error: { status?: number; type?: string; code?: string; retryAfter?: number }) =>
          void res.status(error.status ?? 500).json({ error: error.type ?? String(error), code: error.code }),
      )
    }
  app.get(
    "/2fa/status",
    answer((req, res) => gatehouse.twoFactorStatus(req, res)),
  )
  app.post(
    "/2fa/enable",
    answer((req, res) => gatehouse.enableTotp(req, res, req.body)),
  )
  app.post(
    "/2fa/verify",
    answer((req, res) => gatehouse.verifyTotpEnrolment(req, res, req.body)),
  )
  app.post(
    "/2fa/disable",
    answer((req, res) => gatehouse.disableTotp(req, res, req.body)),
  )
  app.post(
    "/2fa/regenerate",
    answer((req, res) => gatehouse.regenerateBackupCodes(req, res, req.body)),
  )
  app.post(
    "/2fa/sign-out-everywhere",
    answer((req, res) => gatehouse.revokeAllSessions(req, res)),
  )
  return h
}

async function csrf(app: Express, jar: Jar): Promise<{ token: string; jar: Jar }> {
  const res = await request(app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
  return { token: res.body.csrfToken as string, jar: cookieJar(jar, res.headers["set-cookie"]) }
}

/** The credentials POST; the answer and the jar after it. */
async function firstFactor(app: Express, username: string, jar: Jar = {}, headers: Record<string, string> = {}) {
  const c = await csrf(app, jar)
  const res = await request(app)
    .post("/auth/callback/credentials")
    .set("Cookie", cookieHeader(c.jar))
    .set(headers)
    .type("form")
    .send({ csrfToken: c.token, username, password: USERS[username]!.password, callbackUrl: "/home" })
  return { res, jar: cookieJar(c.jar, res.headers["set-cookie"]) }
}

async function secondFactor(
  app: Express,
  jar: Jar,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const c = await csrf(app, jar)
  const res = await request(app)
    .post("/auth/two-factor")
    .set("Cookie", cookieHeader(c.jar))
    .set(headers)
    .type("form")
    .send({ csrfToken: c.token, ...fields })
  return { res, jar: cookieJar(c.jar, res.headers["set-cookie"]) }
}

const sessionOf = async (app: Express, jar: Jar) =>
  (await request(app).get("/auth/session").set("Cookie", cookieHeader(jar))).body as {
    user?: { email?: string }
  } | null

const setCookies = (res: request.Response): string[] => {
  const raw = res.headers["set-cookie"] as unknown
  return Array.isArray(raw) ? (raw as string[]) : typeof raw === "string" ? [raw] : []
}
const hasSessionCookie = (res: request.Response) =>
  setCookies(res).some(
    (line) => line.startsWith(`${SESSION}=`) && !/Max-Age=0/i.test(line) && !line.startsWith(`${SESSION}=;`),
  )

/** Signs `username` in without two-factor (not enrolled yet), then enrols TOTP; returns the secret and codes. */
async function enrolled(h: Harness, username: string) {
  const { jar } = await firstFactor(h.app, username)
  const started = await request(h.app).post("/2fa/enable").set("Cookie", cookieHeader(jar)).send({})
  expect(started.status).toBe(200)
  const secret = started.body.secret as string
  const confirmed = await request(h.app)
    .post("/2fa/verify")
    .set("Cookie", cookieHeader(jar))
    .send({ code: codeAtStep(secret, -1) })
  expect(confirmed.status).toBe(200)
  return {
    secret,
    enrolment: started.body,
    backupCodes: confirmed.body.backupCodes as string[],
    jar: cookieJar(jar, confirmed.headers["set-cookie"]),
  }
}

describe("the test's own TOTP matches RFC 6238 Appendix B", () => {
  const seed = Buffer.from("12345678901234567890")
  it.each([
    [59, "287082"],
    [1111111109, "081804"],
    [1111111111, "050471"],
    [1234567890, "005924"],
    [2000000000, "279037"],
    [20000000000, "353130"],
  ])("T=%d", (t, code) => expect(totpAt(seed, t)).toBe(code))
})

/** The acceptance tests T1-T3, T5-T8 for one session strategy (on the adapter `adapterFor` gives). */
function acceptance(strategy: "jwt" | "database"): void {
  // Mid-step, so the ±1 step arithmetic of the tests never crosses a boundary (and 0.6 s into a second, so that
  // "3.5 s later" is 4 whole seconds of session age).
  beforeEach(() => fakeDateOnly(Math.floor(Date.now() / 30_000) * 30_000 + 10_600))
  afterEach(() => jest.useRealTimers())

  it("T1 enableTotp gives secret, URI and QR; enrol with step now-1; sign-ins with now+2, now+1, now", async () => {
    const h = makeApp(strategy)
    const { secret, enrolment, backupCodes } = await enrolled(h, "alice")
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(base32Decode(secret)).toHaveLength(20)
    expect(enrolment.uri).toBe(
      `otpauth://totp/Gatehouse%20Test:alice%40example.test?secret=${secret}&issuer=Gatehouse%20Test` +
        "&algorithm=SHA1&digits=6&period=30",
    )
    expect(enrolment.qrSvg).toContain("<svg")
    expect(enrolment.qrSvg).not.toContain("<script")
    expect(enrolment.qrSvg).not.toContain("<image")
    expect(backupCodes).toHaveLength(10)
    expect(new Set(backupCodes).size).toBe(10)
    for (const code of backupCodes) expect(code).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/)

    const plus2 = await firstFactor(h.app, "alice")
    const tooFar = await secondFactor(h.app, plus2.jar, { code: codeAtStep(secret, 2) })
    expect(loc(tooFar.res)).toBe(`/auth/two-factor?error=TwoFactorInvalid`)
    const ok = await secondFactor(h.app, tooFar.jar, { code: codeAtStep(secret, 1) })
    expect(ok.res.status).toBe(302)
    expect(loc(ok.res)).toBe(`/home`)
    expect((await sessionOf(h.app, ok.jar))?.user?.email).toBe("alice@example.test")

    const again = await firstFactor(h.app, "alice")
    const older = await secondFactor(h.app, again.jar, { code: codeAtStep(secret, 0) })
    expect(loc(older.res)).toBe(`/auth/two-factor?error=TwoFactorInvalid`)
    expect(hasSessionCookie(older.res)).toBe(false)
  })

  it("T2 the same code on two challenges, and one fresh code on two challenges in parallel", async () => {
    const h = makeApp(strategy)
    const { secret } = await enrolled(h, "alice")
    const code = codeAtStep(secret, 0)
    const first = await firstFactor(h.app, "alice")
    expect(loc((await secondFactor(h.app, first.jar, { code })).res)).toBe("/home")
    const second = await firstFactor(h.app, "alice")
    const replay = await secondFactor(h.app, second.jar, { code })
    expect(replay.res.status).toBe(302)
    expect(loc(replay.res)).toBe(`/auth/two-factor?error=TwoFactorInvalid`)
    expect(hasSessionCookie(replay.res)).toBe(false)

    const fresh = codeAtStep(secret, 1)
    const a = await firstFactor(h.app, "alice")
    const b = await firstFactor(h.app, "alice")
    const results = await Promise.all([
      secondFactor(h.app, a.jar, { code: fresh }),
      secondFactor(h.app, b.jar, { code: fresh }),
    ])
    expect(results.filter((r) => hasSessionCookie(r.res))).toHaveLength(1)
  })

  it("T3 a credentials sign-in of a 2FA user stops at the second step; the right code signs in once", async () => {
    const h = makeApp(strategy)
    const { secret } = await enrolled(h, "alice")
    const before = { jwt: h.jwtSignIns, events: h.signIns.length }
    const browser = await firstFactor(h.app, "alice")
    expect(browser.res.status).toBe(302)
    expect(loc(browser.res)).toBe(`/auth/two-factor`)
    expect(hasSessionCookie(browser.res)).toBe(false)
    const pendingLine = setCookies(browser.res).find((line) => line.startsWith(`${PENDING}=`))!
    expect(pendingLine).toMatch(/HttpOnly/i)
    expect(pendingLine).toMatch(/SameSite=Lax/i)
    expect(pendingLine).toMatch(/Max-Age=600/)
    expect(pendingLine).toMatch(/Path=\//)
    expect(await sessionOf(h.app, browser.jar)).toBeNull()

    const api = await firstFactor(h.app, "alice", {}, { "X-Auth-Return-Redirect": "1" })
    expect(api.res.status).toBe(200)
    expect(api.res.body.url.replace(/^http:\/\/127\.0\.0\.1:\d+/, "")).toBe("/auth/two-factor")
    expect(hasSessionCookie(api.res)).toBe(false)
    expect(h.jwtSignIns).toBe(before.jwt)
    expect(h.signIns.length).toBe(before.events)

    const page = await request(h.app).get("/auth/two-factor").set("Cookie", cookieHeader(browser.jar))
    expect(page.status).toBe(200)
    expect(page.headers["cache-control"]).toContain("no-store")
    expect(page.text).toContain('name="code"')
    expect(page.text).toContain('autocomplete="one-time-code"')
    expect(page.text).toContain('name="trustDevice"')
    const json = await request(h.app)
      .get("/auth/two-factor")
      .set("Cookie", cookieHeader(browser.jar))
      .set("Accept", "application/json")
    expect(json.body).toMatchObject({ method: "totp", backupCode: true, trustDevice: true })

    const done = await secondFactor(h.app, browser.jar, { code: codeAtStep(secret, 0) })
    expect(done.res.status).toBe(302)
    expect(loc(done.res)).toBe(`/home`)
    expect(hasSessionCookie(done.res)).toBe(true)
    expect(
      setCookies(done.res).some(
        (l) => l.startsWith(`${PENDING}=;`) || (l.startsWith(`${PENDING}=`) && /Max-Age=0/i.test(l)),
      ),
    ).toBe(true)
    expect(h.jwtSignIns - before.jwt).toBe(strategy === "jwt" ? 1 : 0)
    expect(h.signIns.length - before.events).toBe(1)
    expect(h.signIns.at(-1)).toMatchObject({ twoFactor: "totp" })
    expect((await sessionOf(h.app, done.jar))?.user?.email).toBe("alice@example.test")
  })

  it("T5 5 wrong codes on a challenge, 5 on a second, then the right code on a third is locked; bob is not", async () => {
    const h = makeApp(strategy)
    const { secret } = await enrolled(h, "alice")
    const bob = await enrolled(h, "bob")
    const one = await firstFactor(h.app, "alice")
    let jar = one.jar
    for (let i = 0; i < 5; i++) {
      const wrong = await secondFactor(h.app, jar, { code: "000000" === codeAtStep(secret, 0) ? "111111" : "000000" })
      expect(loc(wrong.res)).toBe(`/auth/two-factor?error=TwoFactorInvalid`)
      jar = wrong.jar
    }
    const sixth = await secondFactor(h.app, jar, { code: codeAtStep(secret, 0) })
    expect(loc(sixth.res)).toBe(`/auth/signin?error=TwoFactorRequired`)
    expect(sixth.jar[PENDING]).toBeUndefined()
    expect(hasSessionCookie(sixth.res)).toBe(false)

    const two = await firstFactor(h.app, "alice")
    jar = two.jar
    for (let i = 0; i < 5; i++) jar = (await secondFactor(h.app, jar, { code: "abcdef" })).jar
    const three = await firstFactor(h.app, "alice")
    const locked = await secondFactor(h.app, three.jar, { code: codeAtStep(secret, 0) })
    const retry = Number(locked.res.headers["retry-after"])
    expect(loc(locked.res)).toBe(`/auth/two-factor?error=RateLimited&retry=${retry}`)
    expect(retry).toBeGreaterThanOrEqual(1)
    expect(retry).toBeLessThanOrEqual(900)
    expect(hasSessionCookie(locked.res)).toBe(false)
    expect(h.alerts).toContainEqual({ type: "twofactor.locked", userId: "user-alice" })

    const bobFirst = await firstFactor(h.app, "bob")
    const bobIn = await secondFactor(h.app, bobFirst.jar, { code: codeAtStep(bob.secret, 0) })
    expect(loc(bobIn.res)).toBe(`/home`)
  })

  it("T6 backup codes: one signs in once, none stored readable, regeneration voids the old ones", async () => {
    const h = makeApp(strategy)
    const { secret, backupCodes } = await enrolled(h, "alice")
    const first = await firstFactor(h.app, "alice")
    const used = await secondFactor(h.app, first.jar, { backupCode: backupCodes[0]! })
    expect(loc(used.res)).toBe(`/home`)
    expect(h.signIns.at(-1)).toMatchObject({ twoFactor: "backup-code" })
    const again = await firstFactor(h.app, "alice")
    const replay = await secondFactor(h.app, again.jar, { backupCode: backupCodes[0]! })
    expect(loc(replay.res)).toBe(`/auth/two-factor?error=TwoFactorInvalid`)

    const status = await request(h.app).get("/2fa/status").set("Cookie", cookieHeader(used.jar))
    expect(status.body).toMatchObject({ enabled: true, backupCodesLeft: 9 })
    const row = JSON.stringify(await h.adapter.getTwoFactor("user-alice"))
    for (const code of backupCodes) {
      expect(row).not.toContain(code)
      expect(row).not.toContain(code.replace("-", ""))
    }
    expect(row).not.toContain(secret)

    const regenerated = await request(h.app)
      .post("/2fa/regenerate")
      .set("Cookie", cookieHeader(used.jar))
      .send({ code: codeAtStep(secret, 1) })
    expect(regenerated.status).toBe(200)
    expect(regenerated.body.backupCodes).toHaveLength(10)
    const third = await firstFactor(h.app, "alice")
    const old = await secondFactor(h.app, third.jar, { backupCode: backupCodes[5]! })
    expect(loc(old.res)).toBe(`/auth/two-factor?error=TwoFactorInvalid`)
  })

  it("T7 trusted devices: rotation, replay, another user's cookie, and sign-out everywhere", async () => {
    const h = makeApp(strategy)
    const { secret } = await enrolled(h, "alice")
    await enrolled(h, "bob")
    // The enrolment voided earlier trust cookies up to its own millisecond; the sign-ins come later.
    jest.setSystemTime(Date.now() + 5)
    const first = await firstFactor(h.app, "alice")
    const trusted = await secondFactor(h.app, first.jar, { code: codeAtStep(secret, 0), trustDevice: "1" })
    const trustLine = setCookies(trusted.res).find((line) => line.startsWith(`${TRUST}=`))!
    expect(trustLine).toMatch(/Max-Age=2592000/)
    expect(trustLine).toMatch(/HttpOnly/i)
    const oldTrust = trusted.jar[TRUST]!

    const direct = await firstFactor(h.app, "alice", { [TRUST]: oldTrust })
    expect(loc(direct.res)).toBe(`/home`)
    expect(hasSessionCookie(direct.res)).toBe(true)
    expect(direct.jar[TRUST]).toBeDefined()
    expect(direct.jar[TRUST]).not.toBe(oldTrust)
    expect(h.signIns.at(-1)).toMatchObject({ twoFactor: "trusted-device" })

    const replayed = await firstFactor(h.app, "alice", { [TRUST]: oldTrust })
    expect(loc(replayed.res)).toBe(`/auth/two-factor`)
    expect(h.alerts).toContainEqual({ type: "twofactor.trust_replayed", userId: "user-alice" })

    const bobWithAlices = await firstFactor(h.app, "bob", { [TRUST]: direct.jar[TRUST]! })
    expect(loc(bobWithAlices.res)).toBe(`/auth/two-factor`)

    jest.setSystemTime(Date.now() + 5)
    await request(h.app).post("/2fa/sign-out-everywhere").set("Cookie", cookieHeader(direct.jar))
    jest.setSystemTime(Date.now() + 5)
    const afterRevoke = await firstFactor(h.app, "alice", { [TRUST]: direct.jar[TRUST]! })
    expect(loc(afterRevoke.res)).toBe(`/auth/two-factor`)
  })

  it("T8 disableTotp needs a fresh session and a right code; then the next sign-in has no challenge", async () => {
    const h = makeApp(strategy, { issuer: "Gatehouse Test" }, { session: { strategy, freshAge: 3 } })
    const { secret, jar: enrolJar } = await enrolled(h, "alice")
    jest.setSystemTime(Date.now() + 3500)
    const stale = await request(h.app)
      .post("/2fa/disable")
      .set("Cookie", cookieHeader(enrolJar))
      .send({ code: codeAtStep(secret, 0) })
    expect(stale.status).toBe(403)
    expect(stale.body).toEqual({ error: "SessionNotFresh", code: "session_not_fresh" })
    expect((await h.adapter.getTwoFactor("user-alice"))?.verifiedAt).toBeInstanceOf(Date)

    const first = await firstFactor(h.app, "alice")
    const fresh = await secondFactor(h.app, first.jar, { code: codeAtStep(secret, 0) })
    const wrong = await request(h.app)
      .post("/2fa/disable")
      .set("Cookie", cookieHeader(fresh.jar))
      .send({ code: "12345x" })
    expect(wrong.status).toBe(400)
    expect(wrong.body.error).toBe("TwoFactorInvalid")
    const right = await request(h.app)
      .post("/2fa/disable")
      .set("Cookie", cookieHeader(fresh.jar))
      .send({ code: codeAtStep(secret, 1) })
    expect(right.status).toBe(200)
    expect(right.body).toBe(true)
    const next = await firstFactor(h.app, "alice")
    expect(loc(next.res)).toBe(`/home`)
    expect(hasSessionCookie(next.res)).toBe(true)
  })
}

for (const strategy of ["jwt", "database"] as const) {
  describe(`two-factor sign-in (${strategy} sessions)`, () => acceptance(strategy))
}

// The same tests on the real databases (database sessions; the JWT runs above share the storage code).
const realDatabases: Array<
  [string, () => Promise<{ adapter: Required<Adapter>; teardown(): Promise<void> }>, (t: string, b: () => void) => void]
> = [
  ["SQLite", async () => sqliteAdapterInTempDir("gatehouse-2fa"), describe],
  ["PostgreSQL", () => postgresAdapterInFreshSchema("gatehouse_2fa"), (t, b) => describeWithService(POSTGRES, t, b)],
  [
    "Redis",
    async () => {
      const prefix = `gatehouse-2fa-${randomSuffix()}:`
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
    (t, b) => describeWithService(REDIS, t, b),
  ],
]
for (const [name, open, describeFor] of realDatabases) {
  describeFor(`two-factor sign-in on ${name} (database sessions)`, () => {
    let subject: { adapter: Required<Adapter>; teardown(): Promise<void> }
    beforeAll(async () => {
      subject = await open()
    })
    afterAll(async () => {
      adapterFor = () => MemoryAdapter()
      await subject.teardown()
    })
    beforeEach(async () => {
      adapterFor = () => subject.adapter
      // Each test starts from users without two-factor sign-in (the database is shared by the tests).
      for (const id of ["user-alice", "user-bob"]) {
        await subject.adapter.deleteTwoFactor(id)
        await subject.adapter.deleteUser(id)
      }
    })
    acceptance("database")
  })
}

describe("two-factor edges", () => {
  beforeEach(() => fakeDateOnly(Math.floor(Date.now() / 30_000) * 30_000 + 10_600))
  afterEach(() => jest.useRealTimers())

  it("pages.twoFactor: first factors go to the app's page, the built-in GET redirects there keeping error and retry", async () => {
    const h = makeApp("jwt", { issuer: "Gatehouse Test" }, { pages: { twoFactor: "/my-2fa" } })
    const { secret } = await enrolled(h, "alice")
    const first = await firstFactor(h.app, "alice")
    expect(loc(first.res)).toBe("/my-2fa")
    const page = await request(h.app)
      .get("/auth/two-factor?error=RateLimited&retry=60&other=x")
      .set("Cookie", cookieHeader(first.jar))
    expect(page.status).toBe(302)
    expect(loc(page)).toBe("/my-2fa?error=RateLimited&retry=60")
    // The app's page posts like the built-in one; an API client gets the JSON form of every answer.
    const wrong = await secondFactor(h.app, first.jar, { code: "12345" }, { "X-Auth-Return-Redirect": "1" })
    expect(wrong.res.status).toBe(200)
    expect(String(wrong.res.body.url).replace(/^http:\/\/127\.0\.0\.1:\d+/, "")).toBe("/my-2fa?error=TwoFactorInvalid")
    const right = await secondFactor(
      h.app,
      wrong.jar,
      { code: codeAtStep(secret, 0) },
      { "X-Auth-Return-Redirect": "1" },
    )
    expect(right.res.status).toBe(200)
    expect(String(right.res.body.url).endsWith("/home")).toBe(true)
    expect(hasSessionCookie(right.res)).toBe(true)
  })

  it("bad input: arrays, objects, both fields and none are wrong codes (counted), nothing signs in", async () => {
    const h = makeApp("database")
    const { secret } = await enrolled(h, "alice")
    const first = await firstFactor(h.app, "alice")
    let jar = first.jar
    for (const body of [{ code: ["1", "2"] }, { code: { a: 1 } }, {}, { code: "123456", backupCode: "abcde-12345" }]) {
      const c = await csrf(h.app, jar)
      const res = await request(h.app)
        .post("/auth/two-factor")
        .set("Cookie", cookieHeader(c.jar))
        .send({ csrfToken: c.token, ...body })
      expect(res.status).toBe(302)
      expect(loc(res)).toBe("/auth/two-factor?error=TwoFactorInvalid")
      expect(hasSessionCookie(res)).toBe(false)
      jar = cookieJar(c.jar, res.headers["set-cookie"])
    }
    // A missing CSRF token is the usual MissingCSRF and counts nothing: the fifth attempt still signs in.
    const forged = await request(h.app)
      .post("/auth/two-factor")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ code: "000000" })
    expect(loc(forged)).toContain("error=MissingCSRF")
    const done = await secondFactor(h.app, jar, { code: codeAtStep(secret, 0) })
    expect(loc(done.res)).toBe("/home")
  })
})
