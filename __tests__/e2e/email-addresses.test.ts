// End to end over real SMTP: the address corpus never yields two recipients; SMTP failures leave no usable token.
import { domainToASCII } from "node:url"
import Nodemailer from "../../lib/providers/nodemailer"
import { EmailSignInError } from "../../lib/errors"
import { closedSmtpUrl, signInLinkOf, startSmtpServer, type SmtpFixture } from "../fixtures/smtp"
import { Browser, emailConfig, FROM, locationOf, ORIGIN, SESSION_COOKIE } from "../core/email/harness"
import { normalisedAddresses, rejectedAddresses } from "../core/email/corpus"

const EMAIL_SIGNIN_ERROR = `${ORIGIN}/auth/signin?error=EmailSignInError`
const VERIFY_REQUEST = `${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`

let smtp: SmtpFixture
beforeAll(async () => {
  smtp = await startSmtpServer()
})
afterAll(async () => smtp.stop())
beforeEach(() => {
  smtp.clear()
  smtp.mode = "accept"
})

const asciiAddress = (address: string) => {
  const at = address.lastIndexOf("@")
  return `${address.slice(0, at)}@${domainToASCII(address.slice(at + 1))}`
}

function setup(server = smtp.url, token?: string) {
  const options = token ? { generateVerificationToken: () => token } : {}
  const env = emailConfig([Nodemailer({ server, from: FROM, ...options })])
  return { ...env, browser: new Browser(env.config) }
}

describe("the address corpus (security-checklist 3.7) over SMTP", () => {
  it.each(rejectedAddresses)("rejects %s: no message, no recipient, no token", async (_label, input) => {
    const { browser, createdTokens } = setup()
    const attempts = smtp.recipientAttempts
    expect(locationOf(await browser.requestLink(input))).toBe(EMAIL_SIGNIN_ERROR)
    expect(createdTokens).toEqual([])
    expect(smtp.recipientAttempts).toBe(attempts)
    expect(smtp.messages).toHaveLength(0)
  })

  it.each(normalisedAddresses)(
    "normalises %s to exactly one recipient in the envelope and the header",
    async (_label, input, expected) => {
      const { browser, createdTokens } = setup()
      expect(locationOf(await browser.requestLink(input))).toBe(VERIFY_REQUEST)
      const message = await smtp.nextMessage()
      // smtp-server and mailparser show an IDN domain in Unicode; compare addresses in their ASCII form.
      expect(message.envelope.rcptTo.map(asciiAddress)).toEqual([expected])
      expect(message.to.map(asciiAddress)).toEqual([expected])
      expect(createdTokens.map((t) => t.identifier)).toEqual([expected])
      const link = new URL(signInLinkOf(message))
      expect(link.searchParams.get("email")).toBe(expected)
      expect(locationOf(await browser.openLink(link.href))).toBe(ORIGIN)
      expect((await browser.session())?.user?.email).toBe(expected)
    },
  )

  it("a repeated email field yields one recipient", async () => {
    const { browser } = setup()
    const csrfToken = await browser.csrfToken()
    const body = `csrfToken=${csrfToken}&email=victim%40example.test&email=attacker%40evil.test`
    const response = await browser.fetch("/auth/signin/nodemailer", undefined, body)
    expect(locationOf(response)).toBe(VERIFY_REQUEST)
    expect((await smtp.nextMessage()).envelope.rcptTo).toHaveLength(1)
  })

  it("a JSON array or object as the email is rejected", async () => {
    const { browser, createdTokens } = setup()
    for (const email of [["victim@example.test", "attacker@evil.test"], { address: "victim@example.test" }]) {
      const csrfToken = await browser.csrfToken()
      const response = await browser.fetchJson("/auth/signin/nodemailer", { csrfToken, email })
      expect(locationOf(response)).toBe(EMAIL_SIGNIN_ERROR)
    }
    expect(createdTokens).toEqual([])
    expect(smtp.messages).toHaveLength(0)
  })
})

describe("SMTP failures: a clear error and no usable token", () => {
  async function expectNoUsableToken(env: ReturnType<typeof setup>, token: string) {
    const { adapter, createdTokens, config } = env
    // One token was stored, then removed again when the send failed.
    expect(createdTokens).toHaveLength(1)
    const { identifier, token: hashed } = createdTokens[0]!
    expect(await adapter.useVerificationToken({ identifier, token: hashed })).toBeNull()
    const link = `${ORIGIN}/auth/callback/nodemailer?${new URLSearchParams({ token, email: identifier })}`
    const attacker = new Browser(config)
    expect(locationOf(await attacker.openLink(link))).toBe(`${ORIGIN}/auth/error?error=Verification`)
    expect(attacker.cookies[SESSION_COOKIE]).toBeUndefined()
    const logged = config.logger.errors.find((e) => e instanceof EmailSignInError)
    expect(logged?.message).toBe("Sending the sign-in email failed")
  }

  it("nothing listens on the SMTP port → EmailSignInError", async () => {
    const env = setup(await closedSmtpUrl(), "token-smtp-closed")
    expect(locationOf(await env.browser.requestLink("ada@example.test"))).toBe(EMAIL_SIGNIN_ERROR)
    await expectNoUsableToken(env, "token-smtp-closed")
  })

  it("the server refuses connections (421) → EmailSignInError", async () => {
    smtp.mode = "refuse"
    const env = setup(smtp.url, "token-smtp-421")
    expect(locationOf(await env.browser.requestLink("ada@example.test"))).toBe(EMAIL_SIGNIN_ERROR)
    await expectNoUsableToken(env, "token-smtp-421")
    expect(smtp.messages).toHaveLength(0)
  })

  it("the server rejects the recipient (550) → EmailSignInError", async () => {
    smtp.mode = "reject-recipients"
    const env = setup(smtp.url, "token-smtp-550")
    const attempts = smtp.recipientAttempts
    expect(locationOf(await env.browser.requestLink("ada@example.test"))).toBe(EMAIL_SIGNIN_ERROR)
    expect(smtp.recipientAttempts).toBe(attempts + 1)
    await expectNoUsableToken(env, "token-smtp-550")
    expect(smtp.messages).toHaveLength(0)
  })

  it("once SMTP is back, a new request works", async () => {
    smtp.mode = "refuse"
    const env = setup()
    expect(locationOf(await env.browser.requestLink("ada@example.test"))).toBe(EMAIL_SIGNIN_ERROR)
    smtp.mode = "accept"
    expect(locationOf(await env.browser.requestLink("ada@example.test"))).toBe(VERIFY_REQUEST)
    const link = signInLinkOf(await smtp.nextMessage())
    expect(locationOf(await env.browser.openLink(link))).toBe(ORIGIN)
  })
})
