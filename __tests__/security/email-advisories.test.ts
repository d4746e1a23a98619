// Security checklist 3.7 (ML-xx, EN-xx) and the email advisories of 3.10, over Nodemailer and a real SMTP server.
import { Auth } from "../../lib/core"
import Nodemailer from "../../lib/providers/nodemailer"
import { signInLinkOf, startSmtpServer, type SmtpFixture } from "../fixtures/smtp"
import { makeRequest } from "../core/helpers"
import { Browser, emailConfig, FROM, locationOf, ORIGIN, SESSION_COOKIE, tokenHash } from "../core/email/harness"

const VERIFICATION_ERROR = `${ORIGIN}/auth/error?error=Verification`
const EMAIL_SIGNIN_ERROR = `${ORIGIN}/auth/signin?error=EmailSignInError`

let smtp: SmtpFixture
beforeAll(async () => {
  smtp = await startSmtpServer()
})
afterAll(async () => smtp.stop())
beforeEach(() => smtp.clear())

function setup() {
  const env = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
  return { ...env, browser: new Browser(env.config) }
}

async function linkFor(browser: Browser, email: string): Promise<string> {
  await browser.requestLink(email)
  return signInLinkOf(await smtp.nextMessage())
}

it("GHSA-pg53-56cg-4m8q / CVE-2021-21310: a token issued for A, redeemed as B, is rejected", async () => {
  const { browser, adapter } = setup()
  await adapter.createUser({ id: "victim", email: "victim@example.test", emailVerified: new Date() })
  const link = new URL(await linkFor(browser, "attacker@example.test"))
  link.searchParams.set("email", "victim@example.test")
  expect(locationOf(await browser.openLink(link.href))).toBe(VERIFICATION_ERROR)
  expect(browser.cookies[SESSION_COOKIE]).toBeUndefined()
})

it("GHSA-pgjx-7f9g-9463 / CVE-2022-31127: the submitted identifier never reaches the email HTML", async () => {
  const { browser } = setup()
  // HTML in the address is rejected outright …
  expect(locationOf(await browser.requestLink('<a href="https://evil.example">x</a>@example.test'))).toBe(
    EMAIL_SIGNIN_ERROR,
  )
  expect(smtp.messages).toHaveLength(0)
  // … and an accepted address is not rendered at all: the HTML shows only the host and the escaped link.
  await linkFor(browser, "o&hara@example.test")
  const { html } = smtp.messages[0]!
  expect(html).not.toContain("o&hara")
  expect(html).not.toContain("o&amp;hara")
  expect(html).toContain("email=o%26hara%40example.test")
})

it("GHSA-xv97-c62v-4587 / CVE-2022-35924: comma-separated addresses give one recipient and no second user", async () => {
  const { browser, adapter } = setup()
  expect(locationOf(await browser.requestLink("attacker@evil.test,victim.test"))).not.toBe(EMAIL_SIGNIN_ERROR)
  const message = await smtp.nextMessage()
  expect(message.envelope.rcptTo).toEqual(["attacker@evil.test"])
  expect(locationOf(await browser.openLink(signInLinkOf(message)))).toBe(ORIGIN)
  const user = await adapter.getUserByEmail("attacker@evil.test")
  expect(user?.email).toBe("attacker@evil.test")
  expect(user?.email?.endsWith("@victim.test")).toBe(false)
  expect(locationOf(await browser.requestLink("victim@victim.test,attacker@evil.test"))).toBe(EMAIL_SIGNIN_ERROR)
  expect(smtp.messages).toHaveLength(1)
})

it("GHSA-5jpx-9hw9-2fx4: a quoted local part containing @ is rejected, nothing is delivered", async () => {
  const { browser, createdTokens } = setup()
  const attempts = smtp.recipientAttempts
  for (const email of ['"attacker@evil.test"@victim.test', '"attacker@evil.test" <victim@victim.test>']) {
    expect(locationOf(await browser.requestLink(email))).toBe(EMAIL_SIGNIN_ERROR)
  }
  expect(createdTokens).toEqual([])
  expect(smtp.recipientAttempts).toBe(attempts)
})

it("GHSA-7rqj-j65f-68wh: U+FF20 / U+FE6B are normalised (NFKC) before the single-@ check", async () => {
  const { browser } = setup()
  for (const at of ["\uff20", "\ufe6b"]) {
    expect(locationOf(await browser.requestLink(`attacker@evil.test${at}victim.test`))).toBe(EMAIL_SIGNIN_ERROR)
  }
  expect(smtp.messages).toHaveLength(0)
  await browser.requestLink("victim\uff20victim.test")
  expect((await smtp.nextMessage()).envelope.rcptTo).toEqual(["victim@victim.test"])
})

it("ML-1: the token has 256 bits from a CSPRNG and only its hash is stored", async () => {
  const { browser, createdTokens } = setup()
  const tokens = new Set<string>()
  for (let i = 0; i < 3; i += 1)
    tokens.add(new URL(await linkFor(browser, "ada@example.test")).searchParams.get("token")!)
  expect(tokens.size).toBe(3)
  for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{64}$/)
  expect(createdTokens.map((t) => t.token)).toEqual([...tokens].map((t) => tokenHash(t)))
})

it("ML-2 (GHSA-7w99-5wm4-3g79, better-auth #8067): concurrent redemption yields exactly one session", async () => {
  const { browser, createdSessions } = setup()
  const link = await linkFor(browser, "race@example.test")
  const racers = Array.from({ length: 20 }, () => new Browser(browser.config))
  const locations = (await Promise.all(racers.map((b) => b.openLink(link)))).map(locationOf)
  expect(locations.filter((l) => l === ORIGIN)).toHaveLength(1)
  expect(locations.filter((l) => l === VERIFICATION_ERROR)).toHaveLength(19)
  expect(createdSessions).toHaveLength(1)
})

it("ML-4: redemption is keyed on (identifier, token): a wrong identifier does not burn the owner's link", async () => {
  const { browser } = setup()
  const link = await linkFor(browser, "owner@example.test")
  const wrong = new URL(link)
  wrong.searchParams.set("email", "other@example.test")
  expect(locationOf(await new Browser(browser.config).openLink(wrong.href))).toBe(VERIFICATION_ERROR)
  expect(locationOf(await browser.openLink(link))).toBe(ORIGIN)
})

describe("ML-6: links are built from the configured base URL", () => {
  const saved = process.env.AUTH_URL
  afterEach(() => {
    if (saved === undefined) delete process.env.AUTH_URL
    else process.env.AUTH_URL = saved
  })

  it("with AUTH_URL, a request arriving under another host still gets an AUTH_URL link", async () => {
    process.env.AUTH_URL = `${ORIGIN}/auth`
    const { config } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
    const evil = "https://evil.example"
    const csrf = await Auth(makeRequest("/auth/csrf", { origin: evil }), config)
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const cookies = Object.fromEntries(
      csrf.headers.getSetCookie().map((c) => {
        const [pair] = c.split(";")
        const eq = pair!.indexOf("=")
        return [pair!.slice(0, eq), decodeURIComponent(pair!.slice(eq + 1))]
      }),
    )
    const response = await Auth(
      makeRequest("/auth/signin/nodemailer", {
        origin: evil,
        cookies,
        body: { csrfToken, email: "ada@example.test" },
        headers: { "X-Forwarded-Host": "evil2.example" },
      }),
      config,
    )
    expect(locationOf(response)).toBe(`${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`)
    const link = new URL(signInLinkOf(await smtp.nextMessage()))
    expect(link.origin).toBe(ORIGIN)
  })
})
