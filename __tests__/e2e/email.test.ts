// End to end: Auth() + Nodemailer + a real SMTP server. POST /signin/nodemailer → the message → GET the link → session.
import type { AuthConfig } from "../../lib/core/kernel/types"
import Nodemailer from "../../lib/providers/nodemailer"
import { startSmtpServer, signInLinkOf, type SmtpFixture } from "../fixtures/smtp"
import {
  Browser,
  emailConfig,
  FROM,
  locationOf,
  ORIGIN,
  recordingAdapter,
  SESSION_COOKIE,
  tokenHash,
} from "../core/email/harness"
import { fakeDateOnly } from "../fixtures/clock"

const VERIFY_REQUEST = `${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`
const VERIFICATION_ERROR = `${ORIGIN}/auth/error?error=Verification`
const LINK_LIFETIME = 10 * 60 * 1000 // the default (EM-10; Auth.js: 24 hours)

let smtp: SmtpFixture
beforeAll(async () => {
  smtp = await startSmtpServer()
})
afterAll(async () => smtp.stop())
beforeEach(() => {
  smtp.clear()
  smtp.mode = "accept"
})
afterEach(() => jest.useRealTimers())

function setup(overrides: Partial<AuthConfig> = {}, providerOptions: Record<string, unknown> = {}) {
  const env = emailConfig([Nodemailer({ server: smtp.url, from: FROM, ...providerOptions })], overrides)
  return { ...env, browser: new Browser(env.config) }
}

/** Requests a link for `email` and returns it, read from the message that arrived. */
async function linkFor(browser: Browser, email: string, callbackUrl = `${ORIGIN}/dashboard`): Promise<string> {
  expect(locationOf(await browser.requestLink(email, { callbackUrl }))).toBe(VERIFY_REQUEST)
  return signInLinkOf(await smtp.nextMessage())
}

describe("magic link with Nodemailer over real SMTP", () => {
  it("sends one message to one recipient and signs a new user up with emailVerified set", async () => {
    const { browser, config, adapter, createdTokens, events } = setup()
    const before = Date.now()
    const signin = await browser.requestLink("Ada@Example.test", { callbackUrl: `${ORIGIN}/dashboard` })
    expect(locationOf(signin)).toBe(VERIFY_REQUEST)

    const message = await smtp.nextMessage()
    expect(message.envelope.rcptTo).toEqual(["ada@example.test"])
    expect(message.envelope.mailFrom).toBe("no-reply@app.example")
    expect(message.to).toEqual(["ada@example.test"])
    expect(message.subject).toBe("Sign in to app.example")
    const link = signInLinkOf(message)
    // The default lifetime is 10 minutes, and the message says so.
    expect(message.text).toBe(`Sign in to app.example\n${link}\n\nThis link expires in 10 minutes.\n`)

    const url = new URL(link)
    expect(`${url.origin}${url.pathname}`).toBe(`${ORIGIN}/auth/callback/nodemailer`)
    expect([...url.searchParams.keys()]).toEqual(["callbackUrl", "token", "email"])
    expect(url.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/dashboard`)
    expect(url.searchParams.get("email")).toBe("ada@example.test")
    const token = url.searchParams.get("token")!
    expect(token).toMatch(/^[0-9a-f]{64}$/)

    // Only the hash of the token is stored, for 24 hours by default.
    expect(createdTokens).toHaveLength(1)
    expect(createdTokens[0]!.identifier).toBe("ada@example.test")
    expect(createdTokens[0]!.token).toBe(tokenHash(token))
    expect(createdTokens[0]!.token).not.toContain(token)
    const expires = createdTokens[0]!.expires.valueOf()
    expect(expires).toBeGreaterThanOrEqual(before + LINK_LIFETIME)
    expect(expires).toBeLessThanOrEqual(Date.now() + LINK_LIFETIME)

    const callback = await browser.openLink(link)
    expect(locationOf(callback)).toBe(`${ORIGIN}/dashboard`)
    expect(browser.cookies[SESSION_COOKIE]).toBeTruthy()

    const session = await browser.session()
    expect(session?.user?.email).toBe("ada@example.test")
    const user = await adapter.getUserByEmail("ada@example.test")
    expect(user?.emailVerified).toBeInstanceOf(Date)
    expect(events.createUser).toHaveBeenCalledTimes(1)
    expect(events.createUser.mock.calls[0][0].user.email).toBe("ada@example.test")
    expect(events.updateUser).not.toHaveBeenCalled()
    expect(events.signIn).toHaveBeenCalledWith(
      expect.objectContaining({
        isNewUser: true,
        account: expect.objectContaining({ type: "email", provider: "nodemailer" }),
      }),
    )
    expect(config.logger.errors).toEqual([])
  })

  it("an existing verified user is updated (updateUser event), not created", async () => {
    const { browser, adapter, events } = setup()
    // A never-verified user would be replaced instead (EM-14, __tests__/security/account-recovery.test.ts).
    const existing = await adapter.createUser({
      id: "u-grace",
      email: "grace@example.test",
      name: "Grace",
      emailVerified: new Date(0),
    })
    const link = await linkFor(browser, "grace@example.test")
    expect(locationOf(await browser.openLink(link))).toBe(`${ORIGIN}/dashboard`)
    expect(events.createUser).not.toHaveBeenCalled()
    expect(events.updateUser).toHaveBeenCalledTimes(1)
    expect(events.updateUser.mock.calls[0][0].user).toMatchObject({ id: existing.id, email: "grace@example.test" })
    expect((await adapter.getUser(existing.id))?.emailVerified?.valueOf()).toBeGreaterThan(0)
    expect(events.signIn).toHaveBeenCalledWith(expect.objectContaining({ isNewUser: false }))
    expect((await browser.session())?.user).toMatchObject({ name: "Grace", email: "grace@example.test" })
  })

  it("JWT sessions: the jwt callback sees trigger signUp for a new user, then signIn", async () => {
    const jwt = jest.fn(({ token }: { token: Record<string, unknown> }) => token)
    const { browser } = setup({ session: { strategy: "jwt" }, callbacks: { jwt } })
    await browser.openLink(await linkFor(browser, "lin@example.test"))
    expect(jwt).toHaveBeenCalledWith(expect.objectContaining({ trigger: "signUp", isNewUser: true }))
    jwt.mockClear()
    const again = new Browser(browser.config)
    expect(locationOf(await again.openLink(await linkFor(again, "lin@example.test")))).toBe(`${ORIGIN}/dashboard`)
    expect(jwt).toHaveBeenCalledWith(expect.objectContaining({ trigger: "signIn", isNewUser: false }))
    expect((await again.session())?.user?.email).toBe("lin@example.test")
  })

  it("the same link a second time → the already-used page (its POST → Verification), and no session", async () => {
    const { browser } = setup()
    const link = await linkFor(browser, "ada@example.test")
    expect(locationOf(await browser.openLink(link))).toBe(`${ORIGIN}/dashboard`)
    const other = new Browser(browser.config)
    const replay = await other.openLink(link)
    expect(replay.status).toBe(403)
    expect(await replay.text()).toContain("This link was already used")
    // Posting the token anyway (the form of an earlier visit) is refused as before.
    const url = new URL(link)
    const fields = Object.fromEntries(["token", "email"].map((k) => [k, url.searchParams.get(k)!]))
    await other.fetch("/auth/csrf")
    const csrf = ((await (await other.fetch("/auth/csrf")).json()) as { csrfToken: string }).csrfToken
    expect(locationOf(await other.fetch(`${url.origin}${url.pathname}`, { ...fields, csrfToken: csrf }))).toBe(
      VERIFICATION_ERROR,
    )
    expect(other.cookies[SESSION_COOKIE]).toBeUndefined()
    expect(await other.session()).toBeNull()
  })

  it("an expired link (default 10 minutes) → Verification, and it stays unusable", async () => {
    const { browser } = setup()
    const link = await linkFor(browser, "ada@example.test")
    const issued = Date.now()
    fakeDateOnly(issued + LINK_LIFETIME + 1000)
    expect(locationOf(await browser.openLink(link))).toBe(VERIFICATION_ERROR)
    expect(browser.cookies[SESSION_COOKIE]).toBeUndefined()
    // The expired token was consumed: going back in time does not revive it.
    jest.useRealTimers()
    expect(locationOf(await browser.openLink(link))).toBe(VERIFICATION_ERROR)
  })

  it("maxAge is honoured: a 60 s link works at 59 s and fails at 61 s", async () => {
    const { browser } = setup({}, { maxAge: 60 })
    const early = await linkFor(browser, "ada@example.test")
    const late = await linkFor(browser, "ada@example.test")
    const issued = Date.now()
    fakeDateOnly(issued + 59_000)
    expect(locationOf(await browser.openLink(early))).toBe(`${ORIGIN}/dashboard`)
    fakeDateOnly(issued + 61_000)
    expect(locationOf(await new Browser(browser.config).openLink(late))).toBe(VERIFICATION_ERROR)
  })

  it("the link with another email → Verification; the owner's link still works afterwards", async () => {
    const { browser } = setup()
    const link = await linkFor(browser, "victim@example.test")
    const forged = new URL(link)
    forged.searchParams.set("email", "attacker@example.test")
    const attacker = new Browser(browser.config)
    expect(locationOf(await attacker.openLink(forged.href))).toBe(VERIFICATION_ERROR)
    expect(await attacker.session()).toBeNull()

    for (const variant of ["", "victim@evil.test", "victim@example.test.evil.test", "victim@example.test@evil.test"]) {
      const bad = new URL(link)
      bad.searchParams.set("email", variant)
      expect(locationOf(await attacker.openLink(bad.href))).toBe(VERIFICATION_ERROR)
    }
    const noEmail = new URL(link)
    noEmail.searchParams.delete("email")
    expect(locationOf(await attacker.openLink(noEmail.href))).toBe(VERIFICATION_ERROR)
    const badToken = new URL(link)
    badToken.searchParams.set("token", "0".repeat(64))
    expect(locationOf(await attacker.openLink(badToken.href))).toBe(VERIFICATION_ERROR)
    expect(attacker.cookies[SESSION_COOKIE]).toBeUndefined()

    expect(locationOf(await browser.openLink(link))).toBe(`${ORIGIN}/dashboard`)
    expect((await browser.session())?.user?.email).toBe("victim@example.test")
  })

  it("20 concurrent uses of one link → exactly one session; the other 19 get Verification", async () => {
    const { browser, createdSessions, events } = setup()
    const link = await linkFor(browser, "race@example.test")
    const browsers = Array.from({ length: 20 }, () => new Browser(browser.config))
    const responses = await Promise.all(browsers.map((b) => b.openLink(link)))
    const locations = responses.map(locationOf)
    expect(locations.filter((l) => l === `${ORIGIN}/dashboard`)).toHaveLength(1)
    expect(locations.filter((l) => l === VERIFICATION_ERROR)).toHaveLength(19)
    expect(browsers.filter((b) => b.cookies[SESSION_COOKIE])).toHaveLength(1)
    expect(createdSessions).toHaveLength(1)
    expect(events.createUser).toHaveBeenCalledTimes(1)
    expect(events.signIn).toHaveBeenCalledTimes(1)
  })

  it("a link issued under the old secret still works when it is second in the rotated array", async () => {
    const recording = recordingAdapter()
    const provider = Nodemailer({ server: smtp.url, from: FROM })
    const old = emailConfig([provider], { secret: "old-secret-0123456789abcdef0123456789" }, recording)
    const link = await linkFor(new Browser(old.config), "rot@example.test")
    const token = new URL(link).searchParams.get("token")!
    expect(recording.createdTokens[0]!.token).toBe(tokenHash(token, "old-secret-0123456789abcdef0123456789"))

    // Only the new secret: the link is not recognised (and not consumed either).
    const newOnly = emailConfig([provider], { secret: "new-secret-0123456789abcdef0123456789" }, recording)
    expect(locationOf(await new Browser(newOnly.config).openLink(link))).toBe(VERIFICATION_ERROR)

    const rotated = emailConfig(
      [provider],
      { secret: ["new-secret-0123456789abcdef0123456789", "old-secret-0123456789abcdef0123456789"] },
      recording,
    )
    const browser = new Browser(rotated.config)
    expect(locationOf(await browser.openLink(link))).toBe(`${ORIGIN}/dashboard`)
    expect((await browser.session())?.user?.email).toBe("rot@example.test")

    // New links are hashed with the first (newest) secret.
    const fresh = await linkFor(browser, "rot@example.test")
    expect(recording.createdTokens.at(-1)!.token).toBe(
      tokenHash(new URL(fresh).searchParams.get("token")!, "new-secret-0123456789abcdef0123456789"),
    )
  })

  it("a signIn callback returning false at the verification request → AccessDenied, no email, no token", async () => {
    const signIn = jest.fn(() => false)
    const { browser, createdTokens } = setup({ callbacks: { signIn } })
    const attempts = smtp.recipientAttempts
    const response = await browser.requestLink("deny@example.test")
    expect(locationOf(response)).toBe(`${ORIGIN}/auth/error?error=AccessDenied`)
    expect(signIn).toHaveBeenCalledWith(
      expect.objectContaining({
        user: expect.objectContaining({ email: "deny@example.test" }),
        account: expect.objectContaining({ providerAccountId: "deny@example.test", type: "email" }),
        email: { verificationRequest: true },
      }),
    )
    expect(createdTokens).toEqual([])
    expect(smtp.recipientAttempts).toBe(attempts)
    expect(smtp.messages).toHaveLength(0)
  })

  it("a signIn callback returning false when the link is used → AccessDenied, no user, no session", async () => {
    let allow = true
    const { browser, adapter, createdSessions } = setup({ callbacks: { signIn: () => allow } })
    const link = await linkFor(browser, "late@example.test")
    allow = false
    expect(locationOf(await browser.openLink(link))).toBe(`${ORIGIN}/auth/error?error=AccessDenied`)
    expect(await adapter.getUserByEmail("late@example.test")).toBeNull()
    expect(createdSessions).toEqual([])
    expect(browser.cookies[SESSION_COOKIE]).toBeUndefined()
  })

  it("a POST without the CSRF token sends nothing", async () => {
    const { browser, createdTokens } = setup()
    await browser.csrfToken()
    const response = await browser.fetch("/auth/signin/nodemailer", { email: "csrf@example.test" })
    expect(locationOf(response)).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(createdTokens).toEqual([])
    expect(smtp.messages).toHaveLength(0)
  })

  it("a hostile callbackUrl is not carried into the link", async () => {
    const { browser } = setup()
    const link = await linkFor(browser, "ada@example.test", "https://evil.example/phish")
    expect(new URL(link).searchParams.get("callbackUrl")).toBe(ORIGIN)
    expect(locationOf(await browser.openLink(link))).toBe(ORIGIN)
  })

  it("pages.newUser receives a new user with the callbackUrl", async () => {
    const { browser } = setup({ pages: { newUser: "/welcome" } })
    const link = await linkFor(browser, "new@example.test")
    expect(locationOf(await browser.openLink(link))).toBe(
      `/welcome?callbackUrl=${encodeURIComponent(`${ORIGIN}/dashboard`)}`,
    )
  })
})

describe("the message", () => {
  it("escapes the URL in the HTML and never shows the typed address", async () => {
    const { browser } = setup()
    const link = await linkFor(browser, "A&B@Example.test")
    const message = smtp.messages.at(-1)!
    expect(message.envelope.rcptTo).toEqual(["a&b@example.test"])
    const escaped = link.replace(/&/g, "&amp;")
    expect(message.html).toContain(`href="${escaped}"`)
    // Every & between parameters is escaped as &amp;.
    expect(message.html).not.toMatch(/&(?:token|email)=/)
    expect(message.html).toContain("&amp;token=")
    for (const typed of ["A&B@Example.test", "a&b@example.test", "a&amp;b@example.test"]) {
      expect(message.html).not.toContain(typed)
      expect(message.text).not.toContain(typed)
    }
    // The host is shown with its dots broken, so mail clients do not turn it into a link.
    expect(message.html).toContain("app&#8203;.example")
  })

  it("an unsafe theme colour is not written into the HTML", async () => {
    const { browser } = setup({ theme: { brandColor: `red;background:url("https://evil.example/")` } })
    await linkFor(browser, "ada@example.test")
    const { html } = smtp.messages.at(-1)!
    expect(html).not.toContain("evil.example")
    expect(html).toContain("background:#334155") // the built-in pages' default brand
  })

  it("an address containing HTML is rejected before any message is written", async () => {
    const { browser, createdTokens } = setup()
    for (const email of ["<b>ada</b>@example.test", "ada@example.test<img src=x onerror=alert(1)>"]) {
      const response = await browser.requestLink(email)
      expect(locationOf(response)).toBe(`${ORIGIN}/auth/signin?error=EmailSignInError`)
    }
    expect(createdTokens).toEqual([])
    expect(smtp.messages).toHaveLength(0)
  })
})
