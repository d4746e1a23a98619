// Issue 11, email links: EM-07 (links only from a configured origin), EM-10 / EM-13 (10-minute default lifetime,
// the `email-maxage-long` warning, a per-address send throttle).
import { createAuthHandler } from "../../lib/core"
import { resolveConfig } from "../../lib/core/kernel/config/resolve"
import Nodemailer from "../../lib/providers/nodemailer"
import { signInLinkOf, startSmtpServer, type SmtpFixture } from "../fixtures/smtp"
import { Browser, emailConfig, FROM, ORIGIN } from "../core/email/harness"
import { fakeDateOnly } from "../fixtures/clock"
import { confirmFormOf } from "../fixtures/magic-link"

let smtp: SmtpFixture
beforeAll(async () => {
  smtp = await startSmtpServer()
})
afterAll(async () => smtp.stop())
beforeEach(() => smtp.clear())

const EVIL = "https://evil.example"

function withEnv(vars: Record<string, string | undefined>, body: () => Promise<void> | void) {
  return async () => {
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
    for (const [k, v] of Object.entries(vars)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
    try {
      await body()
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
    }
  }
}

describe("EM-07", () => {
  it(
    "in production, an email provider without AUTH_URL or a provider url fails at construction",
    withEnv({ NODE_ENV: "production", AUTH_URL: undefined }, () => {
      const { config } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
      expect(() => createAuthHandler(config)).toThrow(/needs AUTH_URL \(or the provider's `url`\) in production/)
    }),
  )

  it(
    "in production with the provider's url, a forged Host still gets a link to the configured origin",
    withEnv({ NODE_ENV: "production", AUTH_URL: undefined }, async () => {
      const { config } = emailConfig([Nodemailer({ server: smtp.url, from: FROM, url: ORIGIN })])
      const attacker = new Browser(config)
      const csrf = (await (await attacker.fetch(`${EVIL}/auth/csrf`)).json()) as { csrfToken: string }
      await attacker.fetch(`${EVIL}/auth/signin/nodemailer`, {
        csrfToken: csrf.csrfToken,
        email: "victim@example.test",
        callbackUrl: `${EVIL}/phish`,
      })
      const message = await smtp.nextMessage()
      const link = new URL(signInLinkOf(message))
      expect(link.origin).toBe(ORIGIN)
      expect(link.searchParams.get("callbackUrl")).toBe(ORIGIN)
      expect(message.text).not.toContain("evil.example")
      expect(message.html).not.toContain("evil.example")
    }),
  )

  it(
    "in development the request origin is used, with the email-url-from-request warning",
    withEnv({ NODE_ENV: "development", AUTH_URL: undefined }, () => {
      const { config } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
      resolveConfig(config)
      expect(config.logger.warnings).toContain("email-url-from-request")
      const configured = emailConfig([Nodemailer({ server: smtp.url, from: FROM, url: ORIGIN })])
      resolveConfig(configured.config)
      expect(configured.config.logger.warnings).not.toContain("email-url-from-request")
    }),
  )
})

describe("EM-10", () => {
  it("a link lives 10 minutes by default", async () => {
    const { config, createdTokens } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
    const before = Date.now()
    await new Browser(config).requestLink("ada@example.test")
    await smtp.nextMessage()
    const expires = createdTokens[0]!.expires.valueOf()
    expect(expires).toBeGreaterThanOrEqual(before + 10 * 60 * 1000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 10 * 60 * 1000)
  })

  it("email-maxage-long is emitted above one hour, not at one hour", () => {
    const long = emailConfig([Nodemailer({ server: smtp.url, from: FROM, url: ORIGIN, maxAge: 60 * 60 + 1 })])
    resolveConfig(long.config)
    expect(long.config.logger.warnings).toContain("email-maxage-long")
    const hour = emailConfig([Nodemailer({ server: smtp.url, from: FROM, url: ORIGIN, maxAge: 60 * 60 })])
    resolveConfig(hour.config)
    expect(hour.config.logger.warnings).not.toContain("email-maxage-long")
  })
})

describe("EM-13", () => {
  afterEach(() => jest.useRealTimers())

  it("at most 3 emails per address per 10 minutes; other addresses are not affected; the answer is the same", async () => {
    const { config, createdTokens } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
    const browser = new Browser(config)
    const verify = `${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`
    for (let i = 0; i < 6; i += 1) {
      expect((await browser.requestLink("flooded@example.test")).headers.get("location")).toBe(verify)
    }
    await browser.requestLink("other@example.test")
    for (let i = 0; i < 4; i += 1) await smtp.nextMessage()
    expect(smtp.messages.map((m) => m.envelope.rcptTo[0])).toEqual([
      "flooded@example.test",
      "flooded@example.test",
      "flooded@example.test",
      "other@example.test",
    ])
    expect(createdTokens).toHaveLength(4)
    expect(config.logger.errors.map((e) => e.message)).toContain("Too many sign-in emails for one address")

    // Ten minutes later the address may receive a link again.
    fakeDateOnly(Date.now() + 10 * 60 * 1000 + 1)
    await browser.requestLink("flooded@example.test")
    await smtp.nextMessage()
    expect(smtp.messages).toHaveLength(5)
  })
})

describe("ML-5", () => {
  async function link(config: ReturnType<typeof emailConfig>["config"]): Promise<string> {
    await new Browser(config).requestLink("ada@example.test", { callbackUrl: "/dashboard" })
    return signInLinkOf(await smtp.nextMessage())
  }

  it("a GET on the link (a mail scanner) renders the confirmation page and changes nothing", async () => {
    const { config, createdSessions } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
    const href = await link(config)
    const scanner = new Browser(config)
    for (let i = 0; i < 3; i += 1) {
      const page = await scanner.fetch(href)
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toBe("text/html")
      expect(page.headers.get("cache-control")).toBe("no-store")
      expect(page.headers.get("referrer-policy")).toBe("no-referrer")
      const form = confirmFormOf(await page.text())
      expect(form.action).toBe(`${ORIGIN}/auth/callback/nodemailer`)
      expect(Object.keys(form.fields).sort()).toEqual(["callbackUrl", "csrfToken", "email", "token"])
    }
    expect(scanner.cookies["__Secure-authjs.session-token"]).toBeUndefined()
    expect(createdSessions).toHaveLength(0)
    // The person's click still works after the scanner's visits.
    const person = new Browser(config)
    expect((await person.openLink(href)).headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    expect(createdSessions).toHaveLength(1)
  })

  it("the POST needs the CSRF token of the page; without it nothing is signed in and the link is not used", async () => {
    const { config, createdSessions } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
    const href = await link(config)
    const url = new URL(href)
    const forged = new Browser(config)
    const fields = Object.fromEntries(["token", "email", "callbackUrl"].map((k) => [k, url.searchParams.get(k)!]))
    const response = await forged.fetch(`${url.origin}${url.pathname}`, fields)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(createdSessions).toHaveLength(0)
    expect((await new Browser(config).openLink(href)).headers.get("location")).toBe(`${ORIGIN}/dashboard`)
  })

  it("a link opened again after it signed someone in says plainly that it was used, with no button to try", async () => {
    const { config, createdSessions } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
    const href = await link(config)
    expect((await new Browser(config).openLink(href)).headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    for (const visitor of [new Browser(config), new Browser(config)]) {
      const again = await visitor.fetch(href)
      expect(again.status).toBe(403)
      expect(again.headers.get("cache-control")).toBe("no-store")
      const html = await again.text()
      expect(html).toContain("<h1>This link was already used</h1>")
      expect(html).toContain("Each sign-in link works once, and this one has been used.")
      expect(html).toContain(`href="${ORIGIN}/auth/signin"`)
      expect(html).not.toContain('name="token"')
    }
    expect(createdSessions).toHaveLength(1)
    // Another link to the same address is not affected.
    const fresh = await link(config)
    expect((await new Browser(config).fetch(fresh)).status).toBe(200)
  })

  it("confirm: false restores the direct GET sign-in", async () => {
    const { config, createdSessions } = emailConfig([Nodemailer({ server: smtp.url, from: FROM, confirm: false })])
    const href = await link(config)
    const response = await new Browser(config).fetch(href)
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    expect(createdSessions).toHaveLength(1)
  })
})
