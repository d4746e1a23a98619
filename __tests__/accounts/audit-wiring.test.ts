// The audit events of two-factor, passwords and tokens (accounts.md §4.2; two-factor.md §9.3, passwords.md §9,
// tokens.md §7), driven through the public surface with the memory adapter (or a sink where the app has no adapter),
// read back from the store; no code, password or token ever appears in an event.
import { createHash, randomBytes } from "node:crypto"
import { once } from "node:events"
import type { Server } from "node:http"
import express from "express"
import type { Express, Request, Response } from "express"
import request from "supertest"
import { Gatehouse } from "../../lib"
import type { AuthConfig } from "../../lib/core/kernel/types"
import type { AuditEvent } from "../../lib/core/kernel/audit"
import Credentials from "../../lib/providers/credentials"
import Email from "../../lib/providers/email"
import type { SendVerificationRequestParams } from "../../lib/providers/types"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { AdapterAuditEvent, Adapter } from "../../lib/storage/adapter"
import { fakeDateOnly } from "../fixtures/clock"
import { SECRET, cookieHeader, cookieJar } from "../express/apps"
import { passwordApp, seedUser, type PasswordApp } from "../password/harness"
import { totpCode as totp } from "../fixtures/totp"

type Jar = Record<string, string>
const quiet = { error: () => undefined, warn: () => undefined, debug: () => undefined }

/** The stored events of `userId`. */
async function stored(adapter: Required<Adapter>, userId: string): Promise<AdapterAuditEvent[]> {
  return adapter.listAuditEvents({ userId, limit: 200 })
}
/**
 * The events as [type, outcome, reason, details], sorted (events of the same millisecond, as under a frozen clock,
 * have no order: the listing breaks ties by random id).
 */
const shape = (events: Array<AdapterAuditEvent | AuditEvent>) =>
  events
    .map((e) => [e.type, e.outcome, e.reason, e.details ?? null])
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
const sorted = (rows: unknown[][]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))

/** Fails when any of `secrets` appears anywhere in the events. */
function expectNoSecret(events: unknown[], secrets: string[]): void {
  const text = JSON.stringify(events)
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(3)
    expect(text).not.toContain(secret)
  }
}

// ---------- two-factor ----------

function twoFactorApp(strategy: "jwt" | "database") {
  const adapter = MemoryAdapter() as Required<Adapter>
  const gatehouse = Gatehouse({
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy },
    twoFactor: { issuer: "Audit Test" },
    logger: quiet,
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: (c) =>
          c.username === "alice" && c.password === "wonderland"
            ? { id: "user-alice", email: "alice@example.test", name: "Alice" }
            : null,
      }),
    ],
  })
  const app = express()
  app.use(express.json())
  app.use("/auth", gatehouse.handlers)
  const answer =
    (run: (req: Request, res: Response) => Promise<unknown>) =>
    (req: Request, res: Response): void => {
      run(req, res).then(
        (body) => void res.json(body),
        (error: { status?: number; type?: string }) =>
          void res.status(error.status ?? 500).json({ error: error.type ?? String(error) }),
      )
    }
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
  return { app, adapter }
}

async function csrf(app: Express, jar: Jar): Promise<{ token: string; jar: Jar }> {
  const res = await request(app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
  return { token: res.body.csrfToken as string, jar: cookieJar(jar, res.headers["set-cookie"]) }
}

async function firstFactor(app: Express, jar: Jar = {}): Promise<Jar> {
  const c = await csrf(app, jar)
  const res = await request(app)
    .post("/auth/callback/credentials")
    .set("Cookie", cookieHeader(c.jar))
    .type("form")
    .send({ csrfToken: c.token, username: "alice", password: "wonderland", callbackUrl: "/home" })
  return cookieJar(c.jar, res.headers["set-cookie"])
}

async function secondFactor(app: Express, jar: Jar, fields: Record<string, string>) {
  const c = await csrf(app, jar)
  const res = await request(app)
    .post("/auth/two-factor")
    .set("Cookie", cookieHeader(c.jar))
    .type("form")
    .send({ csrfToken: c.token, ...fields })
  return { res, jar: cookieJar(c.jar, res.headers["set-cookie"]) }
}

describe("audit wiring: two-factor", () => {
  beforeEach(() => fakeDateOnly(Math.floor(Date.now() / 30_000) * 30_000 + 10_600))
  afterEach(() => jest.useRealTimers())

  for (const strategy of ["jwt", "database"] as const) {
    it(`enable, used (success and failure), backup code, trusted device, regenerate and disable (${strategy})`, async () => {
      const { app, adapter } = twoFactorApp(strategy)
      const other = await firstFactor(app)
      let jar = await firstFactor(app)
      const started = await request(app).post("/2fa/enable").set("Cookie", cookieHeader(jar)).send({})
      expect(started.status).toBe(200)
      const secret = started.body.secret as string
      const enrolCode = totp(secret, -1)
      const confirmed = await request(app)
        .post("/2fa/verify")
        .set("Cookie", cookieHeader(jar))
        .send({ code: enrolCode })
      expect(confirmed.status).toBe(200)
      jar = cookieJar(jar, confirmed.headers["set-cookie"])
      const backupCodes = confirmed.body.backupCodes as string[]
      expect(other).not.toEqual({})

      // A wrong code, then a right one (and the device trusted), then a backup code. The enrolment voided earlier
      // trust cookies up to its own millisecond: the sign-ins come later.
      jest.setSystemTime(Date.now() + 5)
      const pending = await firstFactor(app)
      const wrong = await secondFactor(app, pending, { code: totp(secret, 0) === "000000" ? "111111" : "000000" })
      expect(wrong.res.headers.location).toContain("error=TwoFactorInvalid")
      const good = await secondFactor(app, wrong.jar, { code: totp(secret, 0), trustDevice: "1" })
      expect(good.res.headers.location).toMatch(/\/home$/)
      const trusted = await firstFactor(app, { "gatehouse.two-factor-trust": good.jar["gatehouse.two-factor-trust"]! })
      expect(Object.keys(trusted).some((name) => name.includes("session-token"))).toBe(true)
      const withBackup = await firstFactor(app)
      const backup = await secondFactor(app, withBackup, { backupCode: backupCodes[0]! })
      expect(backup.res.headers.location).toMatch(/\/home$/)

      const regenerated = await request(app)
        .post("/2fa/regenerate")
        .set("Cookie", cookieHeader(jar))
        .send({ code: totp(secret, 1) })
      expect(regenerated.status).toBe(200)
      const disabled = await request(app)
        .post("/2fa/disable")
        .set("Cookie", cookieHeader(jar))
        .send({ code: regenerated.body.backupCodes[0] })
      expect(disabled.status).toBe(200)

      const events = (await stored(adapter, "user-alice")).filter((e) => e.type !== "signin")
      expect(shape(events)).toEqual(
        sorted([
          ["session.revoked", "success", "two-factor", strategy === "database" ? { count: 1 } : null],
          ["twofactor.enabled", "success", null, null],
          ["twofactor.used", "failure", "TwoFactorInvalid", { method: "totp" }],
          ["twofactor.used", "success", null, { method: "totp" }],
          ["twofactor.used", "success", null, { method: "trusted-device" }],
          ["twofactor.backup_code_used", "success", null, { remaining: 9 }],
          ["twofactor.backup_codes_regenerated", "success", null, null],
          // The disabling proof was a backup code of the new set.
          ["twofactor.backup_code_used", "success", null, { remaining: 9 }],
          // Disabling ends the other sessions too (the ones the sign-ins above made).
          ["session.revoked", "success", "two-factor", strategy === "database" ? { count: 3 } : null],
          ["twofactor.disabled", "success", null, null],
        ]),
      )
      for (const event of events) expect(event.userId).toBe("user-alice")
      expectNoSecret(events, [
        secret,
        enrolCode,
        totp(secret, 0),
        ...backupCodes,
        ...backupCodes.map((c) => c.replace("-", "")),
        ...(regenerated.body.backupCodes as string[]),
        ...Object.values(jar),
      ])
    })
  }
})

describe("audit wiring: the email second factor", () => {
  it("a wrong and a right email code write twofactor.used with method email, never the code", async () => {
    const mails: SendVerificationRequestParams[] = []
    const adapter = MemoryAdapter() as Required<Adapter>
    const gatehouse = Gatehouse({
      secret: SECRET,
      trustHost: true,
      adapter,
      session: { strategy: "database" },
      twoFactor: { methods: ["totp", "email"], required: true },
      logger: quiet,
      providers: [
        Credentials({
          credentials: { username: {}, password: { type: "password" } },
          authorize: (c) =>
            c.username === "alice" && c.password === "wonderland"
              ? { id: "user-alice", email: "alice@example.test" }
              : null,
        }),
        Email({ sendVerificationRequest: (params) => void mails.push(params) }),
      ],
    })
    const app = express()
    app.use("/auth", gatehouse.handlers)
    const pending = await firstFactor(app)
    expect(mails).toHaveLength(1)
    const code = mails[0]!.code!
    expect(code).toMatch(/^[0-9]{6}$/)
    const wrong = await secondFactor(app, pending, {
      code: code === "000000" ? "111111" : "000000",
    })
    expect(wrong.res.headers.location).toContain("error=TwoFactorInvalid")
    const right = await secondFactor(app, wrong.jar, { code })
    expect(right.res.headers.location).toMatch(/\/home$/)

    const events = (await stored(adapter, "user-alice")).filter((e) => e.type !== "signin")
    expect(shape(events)).toEqual(
      sorted([
        ["twofactor.used", "failure", "TwoFactorInvalid", { method: "email" }],
        ["twofactor.used", "success", null, { method: "email" }],
      ]),
    )
    expectNoSecret(await adapter.listAuditEvents({ limit: 200 }), [
      code,
      "alice@example.test",
      ...Object.values(right.jar),
    ])
  })
})

// ---------- passwords ----------

describe("audit wiring: passwords", () => {
  let app: PasswordApp
  afterEach(async () => app.close())

  it("a reset writes session.revoked (password-reset) and password.reset, nothing secret", async () => {
    app = await passwordApp({ config: { session: { strategy: "database" } } })
    const userId = await seedUser(app, "ada@example.test", "old password 1")
    const browser = app.browser()
    await browser.signIn("ada@example.test", "old password 1")
    expect((await browser.session())?.user?.email).toBe("ada@example.test")
    await app.browser().form("/auth/forgot-password", { email: "ada@example.test" })
    await app.waitForMail("reset", 1)
    const link = new URL(app.mail.reset[0]!.url)
    const token = link.searchParams.get("token")!
    const reset = await app.browser().form("/auth/reset-password", {
      token,
      email: "ada@example.test",
      password: "new password 2",
    })
    expect(reset.status).toBe(302)
    expect(await browser.session()).toBeNull()

    const events = (await stored(app.adapter, userId)).filter((e) => e.type !== "signin")
    expect(shape(events)).toEqual(
      sorted([
        ["session.revoked", "success", "password-reset", { count: 1 }],
        ["password.reset", "success", null, null],
      ]),
    )
    expectNoSecret(await app.adapter.listAuditEvents({ limit: 200 }), [
      token,
      "old password 1",
      "new password 2",
      "ada@example.test",
      ...Object.values(browser.jar),
    ])
  })

  it("a change writes session.revoked (password-change) and password.changed (change)", async () => {
    app = await passwordApp({ config: { session: { strategy: "database" } } })
    const userId = await seedUser(app, "bea@example.test", "old password 1")
    const other = app.browser()
    await other.signIn("bea@example.test", "old password 1")
    const browser = app.browser()
    await browser.signIn("bea@example.test", "old password 1")
    const changed = await browser.json("/auth/change-password", {
      currentPassword: "old password 1",
      newPassword: "new password 2",
    })
    expect(changed.status).toBeLessThan(400)
    expect(await other.session()).toBeNull()
    expect((await browser.session())?.user?.email).toBe("bea@example.test")

    const events = (await stored(app.adapter, userId)).filter((e) => e.type !== "signin")
    expect(shape(events)).toEqual(
      sorted([
        ["session.revoked", "success", "password-change", { count: 1 }],
        ["password.changed", "success", "change", null],
      ]),
    )
    expectNoSecret(events, ["old password 1", "new password 2", "bea@example.test", ...Object.values(browser.jar)])
  })

  it("a first password writes password.changed (set)", async () => {
    app = await passwordApp({
      extraProviders: [
        Credentials({
          id: "stand-in",
          credentials: { username: {} },
          authorize: async (c) => (c.username === "cy" ? app.adapter.getUserByEmail("cy@example.test") : null),
        }),
      ],
    })
    const user = await app.adapter.createUser({ email: "cy@example.test", emailVerified: new Date() } as never)
    const browser = app.browser()
    const signedIn = await browser.form("/auth/callback/stand-in", { username: "cy" })
    expect(signedIn.headers.location).not.toContain("error")
    const set = await browser.json("/auth/set-password", { newPassword: "first password 1" })
    expect(set.status).toBeLessThan(400)
    const events = (await stored(app.adapter, user.id)).filter((e) => e.type !== "signin")
    expect(shape(events)).toEqual([["password.changed", "success", "set", null]])
    expectNoSecret(events, ["first password 1", "cy@example.test"])
  })
})

// ---------- tokens ----------

const servers: Server[] = []
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
})

async function tokenApp(strategy: "jwt" | "database", native = false) {
  const sunk: AuditEvent[] = []
  const adapter = MemoryAdapter() as Required<Adapter>
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    ...(strategy === "database" ? { adapter } : {}),
    session: { strategy, bearer: true },
    ...(native ? { native: { redirectUris: ["myapp://cb"], name: "Test CLI" } } : {}),
    audit: { sink: (event) => void sunk.push(event) },
    logger: quiet,
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
  const server = app.listen(0, "127.0.0.1")
  servers.push(server)
  await once(server, "listening")
  return { app: server as unknown as Express, sunk }
}

describe("audit wiring: tokens", () => {
  for (const strategy of ["jwt", "database"] as const) {
    it(`a bearer sign-out writes signout once; the same bearer again writes nothing (${strategy})`, async () => {
      const { app, sunk } = await tokenApp(strategy)
      const signIn = await request(app)
        .post("/auth/callback/credentials")
        .set("X-Auth-Return-Token", "1")
        .send({ username: "alice", password: "alice-pw" })
      expect(signIn.status).toBe(200)
      const token = signIn.body.token as string
      const first = await request(app).post("/auth/signout").set("Authorization", `Bearer ${token}`)
      expect(first.body).toEqual({ ok: true })
      const again = await request(app).post("/auth/signout").set("Authorization", `Bearer ${token}`)
      expect(again.body).toEqual({ ok: true })
      const after = sunk.filter((e) => e.type !== "signin")
      expect(after.map((e) => [e.type, e.userId, e.outcome])).toEqual([["signout", "user-alice", "success"]])
      expectNoSecret(sunk, [token])
    })
  }

  it("a redeemed native code writes signin; redeemed twice, session.revoked (code-reuse); no code or token", async () => {
    const { app, sunk } = await tokenApp("jwt", true)
    const verifier = randomBytes(32).toString("base64url")
    const challenge = createHash("sha256").update(verifier).digest("base64url")
    const query = new URLSearchParams({
      callbackUrl: "myapp://cb",
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st-1",
    })
    const start = await request(app).get(`/auth/signin/credentials?${query}`)
    const continuation = new URL(start.headers.location as string).searchParams.get("callbackUrl")!
    const c = await request(app).get("/auth/csrf")
    let jar = cookieJar({}, c.headers["set-cookie"])
    const signIn = await request(app)
      .post("/auth/callback/credentials")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: c.body.csrfToken, username: "alice", password: "alice-pw", callbackUrl: continuation })
    jar = cookieJar(jar, signIn.headers["set-cookie"])
    const url = new URL(continuation)
    const page = await request(app)
      .get(url.pathname + url.search)
      .set("Cookie", cookieHeader(jar))
    jar = cookieJar(jar, page.headers["set-cookie"])
    const ctx = /name="ctx" value="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, "&")
    const allowed = await request(app)
      .post("/auth/native")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: c.body.csrfToken, ctx, action: "allow" })
    const code = new URLSearchParams((allowed.headers.location as string).split("?")[1]).get("code")!
    const exchange = await request(app).post("/auth/token").send({ code, code_verifier: verifier })
    expect(exchange.status).toBe(200)
    const reuse = await request(app).post("/auth/token").send({ code, code_verifier: verifier })
    expect(reuse.body.error).toBe("invalid_grant")

    // The browser sign-in, then the redeemed code (provider of the code's sign-in); the reuse signs no one in.
    expect(sunk.filter((e) => e.type === "signin").map((e) => [e.userId, e.provider, e.outcome])).toEqual([
      ["user-alice", "credentials", "success"],
      ["user-alice", "credentials", "success"],
    ])
    const revoked = sunk.filter((e) => e.type === "session.revoked")
    expect(revoked.map((e) => [e.userId, e.outcome, e.reason, e.details])).toEqual([
      ["user-alice", "success", "code-reuse", { count: 1 }],
    ])
    expect(sunk.some((e) => e.type === "signout")).toBe(false)
    expectNoSecret(sunk, [code, verifier, exchange.body.token as string, ...Object.values(jar)])
  })
})
