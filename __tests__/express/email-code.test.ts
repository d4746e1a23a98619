// Email one-time codes C1-C8 (wave-3 two-factor spec section 11): a code next to the link signs in on
// POST /auth/callback/email; attempts, lifetime and single use shared with the link; C6 the email second factor.
import express from "express"
import type { Express } from "express"
import request from "supertest"
import { Gatehouse } from "../../lib"
import { InvalidConfig } from "../../lib/errors"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import Email from "../../lib/providers/email"
import type { EmailConfig, SendVerificationRequestParams } from "../../lib/providers/types"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import Redis from "ioredis"
import { postgresAdapterInFreshSchema } from "../fixtures/postgres-adapter"
import { sqliteAdapterInTempDir } from "../fixtures/sqlite-adapter"
import { POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { fakeDateOnly } from "../fixtures/clock"
import { confirmFormOf } from "../fixtures/magic-link"
import { SECRET, cookieHeader, cookieJar } from "./apps"

type Jar = Record<string, string>
/** The adapter each app of a test gets: memory by default, one fresh real database per test below. */
let adapterFor: () => Adapter = () => MemoryAdapter()
const SESSION = "authjs.session-token"
const FAILED = "/auth/verify-request?provider=email&type=email&error=Verification"
const path = (res: request.Response) => String(res.headers.location ?? "").replace(/^http:\/\/127\.0\.0\.1:\d+/, "")
const setCookies = (res: request.Response): string[] => (res.headers["set-cookie"] as unknown as string[]) ?? []
const hasSession = (res: request.Response) =>
  setCookies(res).some((l) => l.startsWith(`${SESSION}=`) && !/Max-Age=0/i.test(l) && !l.startsWith(`${SESSION}=;`))

interface Harness {
  app: Express
  mails: SendVerificationRequestParams[]
  signIns: Array<Record<string, unknown>>
}

function makeApp(code: EmailConfig["code"] = true, extra: Partial<AuthConfig> = {}, maxAge?: number): Harness {
  const mails: SendVerificationRequestParams[] = []
  const signIns: Array<Record<string, unknown>> = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: adapterFor(),
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    events: { signIn: (m) => void signIns.push(m as Record<string, unknown>) },
    providers: [
      Email({ code, ...(maxAge ? { maxAge } : {}), sendVerificationRequest: (params) => void mails.push(params) }),
    ],
    ...extra,
  }
  const app = express()
  app.use("/auth", Gatehouse(config).handlers)
  return { app, mails, signIns }
}

async function csrf(app: Express, jar: Jar) {
  const res = await request(app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
  return { token: res.body.csrfToken as string, jar: cookieJar(jar, res.headers["set-cookie"]) }
}

async function requestCode(h: Harness, email: string, jar: Jar = {}) {
  const c = await csrf(h.app, jar)
  const res = await request(h.app)
    .post("/auth/signin/email")
    .set("Cookie", cookieHeader(c.jar))
    .type("form")
    .send({ csrfToken: c.token, email, callbackUrl: "/dashboard" })
  return { res, jar: cookieJar(c.jar, res.headers["set-cookie"]), mail: h.mails.at(-1)! }
}

async function postCode(h: Harness, jar: Jar, fields: Record<string, string>) {
  const c = await csrf(h.app, jar)
  const res = await request(h.app)
    .post("/auth/callback/email")
    .set("Cookie", cookieHeader(c.jar))
    .type("form")
    .send({ csrfToken: c.token, ...fields })
  return { res, jar: cookieJar(c.jar, res.headers["set-cookie"]) }
}

async function openLink(h: Harness, url: string, jar: Jar = {}) {
  const link = new URL(url)
  const page = await request(h.app).get(`${link.pathname}${link.search}`).set("Cookie", cookieHeader(jar))
  const next = cookieJar(jar, page.headers["set-cookie"])
  if (page.status !== 200) return page
  const { action, fields } = confirmFormOf(page.text)
  return request(h.app).post(new URL(action).pathname).set("Cookie", cookieHeader(next)).type("form").send(fields)
}

const sessionEmail = async (h: Harness, res: request.Response, jar: Jar) =>
  (
    (
      await request(h.app)
        .get("/auth/session")
        .set("Cookie", cookieHeader(cookieJar(jar, res.headers["set-cookie"])))
    ).body as { user?: { email?: string } } | null
  )?.user?.email

const wrongOf = (code: string) => (code === "000000" ? "111111" : "000000")

function codeTests() {
  afterEach(() => jest.useRealTimers())

  it("C1 the mail carries a 6-digit code for sign-in; the code signs in; 5 parallel posts of a code: 1 session", async () => {
    const h = makeApp()
    const { jar, mail } = await requestCode(h, "cleo@example.test")
    expect(mail.code).toMatch(/^[0-9]{6}$/)
    expect(mail.purpose).toBe("sign-in")
    const done = await postCode(h, jar, { code: mail.code! })
    expect(done.res.status).toBe(302)
    expect(path(done.res)).toBe("/dashboard")
    expect(await sessionEmail(h, done.res, jar)).toBe("cleo@example.test")

    const again = await requestCode(h, "cleo@example.test")
    const results = await Promise.all(
      Array.from({ length: 5 }, () => postCode(h, again.jar, { code: again.mail.code! })),
    )
    expect(results.filter((r) => hasSession(r.res))).toHaveLength(1)
    for (const r of results.filter((x) => !hasSession(x.res))) expect(path(r.res)).toBe(FAILED)
  })

  it("C2 5 wrong codes, then the right one: all refused; the link still signs in", async () => {
    const h = makeApp()
    const { jar, mail } = await requestCode(h, "dora@example.test")
    for (let i = 0; i < 5; i++) {
      const wrong = await postCode(h, jar, { code: wrongOf(mail.code!) })
      expect(wrong.res.status).toBe(302)
      expect(path(wrong.res)).toBe(FAILED)
      expect(hasSession(wrong.res)).toBe(false)
    }
    const right = await postCode(h, jar, { code: mail.code! })
    expect(path(right.res)).toBe(FAILED)
    expect(hasSession(right.res)).toBe(false)
    // (supertest serves each request on a new port, so the link's absolute callback URL is not this origin's.)
    const link = await openLink(h, mail.url)
    expect(link.status).toBe(302)
    expect(hasSession(link)).toBe(true)
    expect(await sessionEmail(h, link, {})).toBe("dora@example.test")
  })

  it("C3 A's code posted for B fails; both own codes still work", async () => {
    const h = makeApp()
    const a = await requestCode(h, "ann@example.test")
    const b = await requestCode(h, "ben@example.test")
    const crossed = await postCode(h, {}, { email: "ben@example.test", code: a.mail.code! })
    expect(path(crossed.res)).toBe(FAILED)
    const bOwn = await postCode(h, b.jar, { code: b.mail.code! })
    expect(await sessionEmail(h, bOwn.res, b.jar)).toBe("ben@example.test")
    const aOwn = await postCode(h, {}, { email: "ann@example.test", code: a.mail.code! })
    expect(await sessionEmail(h, aOwn.res, {})).toBe("ann@example.test")
  })

  it("C4 link then code, and code then link: the second of each pair fails, no second session", async () => {
    const h = makeApp()
    const first = await requestCode(h, "eve@example.test")
    expect(hasSession(await openLink(h, first.mail.url))).toBe(true)
    const codeAfter = await postCode(h, first.jar, { code: first.mail.code! })
    expect(path(codeAfter.res)).toBe(FAILED)
    expect(hasSession(codeAfter.res)).toBe(false)

    const second = await requestCode(h, "eve@example.test")
    expect(hasSession((await postCode(h, second.jar, { code: second.mail.code! })).res)).toBe(true)
    const linkAfter = await openLink(h, second.mail.url)
    expect(hasSession(linkAfter)).toBe(false)
    expect(path(linkAfter)).toContain("error=Verification")
  })

  it("C5 a wrong code for a known address and any code for an address that never asked answer alike", async () => {
    const h = makeApp()
    const known = await requestCode(h, "fay@example.test")
    const unknownSend = await requestCode(h, "nobody-yet@example.test")
    expect(known.res.status).toBe(unknownSend.res.status)
    expect(path(known.res)).toBe(path(unknownSend.res))
    const names = (res: request.Response) =>
      setCookies(res)
        .map((l) => l.slice(0, l.indexOf("=")))
        .sort()
    expect(names(known.res)).toEqual(names(unknownSend.res))

    const wrong = await postCode(h, {}, { email: "fay@example.test", code: wrongOf(known.mail.code!) })
    const never = await postCode(h, {}, { email: "never-asked@example.test", code: "123456" })
    expect(wrong.res.status).toBe(never.res.status)
    expect(path(wrong.res)).toBe(FAILED)
    expect(path(never.res)).toBe(FAILED)
    expect(names(wrong.res)).toEqual(names(never.res))
  })

  it("C6 email as the required second factor of a credentials user without TOTP", async () => {
    const mails: SendVerificationRequestParams[] = []
    const signIns: Array<Record<string, unknown>> = []
    const gatehouse = Gatehouse({
      secret: SECRET,
      trustHost: true,
      adapter: adapterFor(),
      session: { strategy: "database" },
      twoFactor: { methods: ["totp", "email"], required: true },
      logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
      events: { signIn: (m) => void signIns.push(m as Record<string, unknown>) },
      providers: [
        Credentials({
          credentials: { username: {}, password: { type: "password" } },
          authorize: (c) =>
            c.username === "gus" && c.password === "pw" ? { id: "user-gus", email: "gus@example.test" } : null,
        }),
        Email({ sendVerificationRequest: (params) => void mails.push(params) }),
      ],
    })
    const app = express()
    app.use("/auth", gatehouse.handlers)
    const h: Harness = { app, mails, signIns }
    const c = await csrf(app, {})
    const first = await request(app)
      .post("/auth/callback/credentials")
      .set("Cookie", cookieHeader(c.jar))
      .type("form")
      .send({ csrfToken: c.token, username: "gus", password: "pw", callbackUrl: "/dashboard" })
    expect(path(first)).toBe("/auth/two-factor")
    expect(hasSession(first)).toBe(false)
    const jar = cookieJar(c.jar, first.headers["set-cookie"])
    expect(mails).toHaveLength(1)
    expect(mails[0]).toMatchObject({ identifier: "gus@example.test", purpose: "two-factor" })
    expect(mails[0]!.code).toMatch(/^[0-9]{6}$/)
    const json = await request(app)
      .get("/auth/two-factor")
      .set("Cookie", cookieHeader(jar))
      .set("Accept", "application/json")
    expect(json.body).toMatchObject({ method: "email", backupCode: false, sentTo: "g…@example.test" })

    const submit = async (code: string) => {
      const k = await csrf(app, jar)
      return request(app)
        .post("/auth/two-factor")
        .set("Cookie", cookieHeader(k.jar))
        .type("form")
        .send({ csrfToken: k.token, code })
    }
    // "Send a new code": a second mail; the first code stops working.
    const k0 = await csrf(app, jar)
    const resent = await request(app)
      .post("/auth/two-factor")
      .set("Cookie", cookieHeader(k0.jar))
      .type("form")
      .send({ csrfToken: k0.token, resend: "1" })
    expect(path(resent)).toBe("/auth/two-factor?sent=1")
    expect(mails).toHaveLength(2)
    expect(mails[1]).toMatchObject({ purpose: "two-factor", identifier: "gus@example.test" })
    if (mails[0]!.code !== mails[1]!.code) {
      expect(path(await submit(mails[0]!.code!))).toBe("/auth/two-factor?error=TwoFactorInvalid")
    }
    mails.shift()
    const wrong = await submit(wrongOf(mails[0]!.code!))
    expect(path(wrong)).toBe("/auth/two-factor?error=TwoFactorInvalid")
    expect(hasSession(wrong)).toBe(false)
    const right = await submit(mails[0]!.code!)
    expect(path(right)).toBe("/dashboard")
    expect(hasSession(right)).toBe(true)
    expect(h.signIns).toHaveLength(1)
    expect(h.signIns[0]).toMatchObject({ twoFactor: "email" })
  })

  it("C7 code length 7 is refused at construction; length 8 mails an 8-digit code that signs in", async () => {
    expect(() => makeApp({ length: 7 as 8 })).toThrow(InvalidConfig)
    expect(() => makeApp({ length: 7 as 8 })).toThrow("email code length must be 6 or 8")
    const h = makeApp({ length: 8 })
    const { jar, mail } = await requestCode(h, "hal@example.test")
    expect(mail.code).toMatch(/^[0-9]{8}$/)
    const done = await postCode(h, jar, { code: mail.code! })
    expect(await sessionEmail(h, done.res, jar)).toBe("hal@example.test")
  })

  it("C8 with maxAge 2, a code posted after 2.5 s fails", async () => {
    fakeDateOnly(Date.now())
    const h = makeApp(true, {}, 2)
    const { jar, mail } = await requestCode(h, "ida@example.test")
    jest.setSystemTime(Date.now() + 2500)
    const late = await postCode(h, jar, { code: mail.code! })
    expect(path(late.res)).toBe(FAILED)
    expect(hasSession(late.res)).toBe(false)
  })
}

describe("email one-time codes", codeTests)

// The same tests on the real databases (the codes live in the verification-token store of each driver).
const realDatabases: Array<
  [string, () => Promise<{ adapter: Adapter; teardown(): Promise<void> }>, (t: string, b: () => void) => void]
> = [
  ["SQLite", async () => sqliteAdapterInTempDir("gatehouse-codes"), describe],
  ["PostgreSQL", () => postgresAdapterInFreshSchema("gatehouse_codes"), (t, b) => describeWithService(POSTGRES, t, b)],
  [
    "Redis",
    async () => {
      const prefix = `gatehouse-codes-${randomSuffix()}:`
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
  describeFor(`email one-time codes on ${name}`, () => {
    let subject: { adapter: Adapter; teardown(): Promise<void> }
    beforeEach(async () => {
      subject = await open()
      adapterFor = () => subject.adapter
    })
    afterEach(async () => {
      adapterFor = () => MemoryAdapter()
      await subject.teardown()
    })
    codeTests()
  })
}
