// next-wave E5: email-send-address (3 per address per 10 min) and email-send-ip (10 per IP per 10 min), through Auth()
// with `rateLimit.ip`. A refused request never reaches sendVerificationRequest; a known and an unknown address answer
// alike. EM-13 (issue 11) stays on with the limiter off, silently, until the rule is turned off explicitly.
import Nodemailer from "../../lib/providers/nodemailer"
import type { RateLimitOptions } from "../../lib/core/kernel/types"
import { Browser, emailConfig, FROM, ORIGIN } from "../core/email/harness"
import { fakeDateOnly } from "../fixtures/clock"

afterEach(() => jest.useRealTimers())

const VERIFY = `${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`

function setup(rateLimit: RateLimitOptions | undefined) {
  const client = { ip: "192.0.2.9" }
  const sent: string[] = []
  const { config, adapter } = emailConfig(
    [
      Nodemailer({
        server: "smtp://127.0.0.1:1",
        from: FROM,
        sendVerificationRequest: async ({ identifier }) => void sent.push(identifier),
      }),
    ],
    { rateLimit: rateLimit && { ip: () => client.ip, ...rateLimit } },
  )
  return { config, adapter, sent, client, browser: new Browser(config) }
}

async function answers(browser: Browser, email: string, times: number) {
  const out: Array<{ status: number; location: string | null; retryAfter: string | null }> = []
  for (let i = 0; i < times; i += 1) {
    const response = await browser.requestLink(email)
    out.push({
      status: response.status,
      location: response.headers.get("location"),
      retryAfter: response.headers.get("retry-after"),
    })
  }
  return out
}

describe("E5: email-send-address, 3 per address per 10 minutes", () => {
  it("5 requests: 3 emails sent; requests 4 and 5 are RateLimited and never reach sendVerificationRequest", async () => {
    fakeDateOnly(Date.parse("2026-11-23T10:00:00Z"))
    const { browser, sent } = setup({ enabled: true })
    const got = await answers(browser, "ada@example.com", 5)
    expect(sent).toEqual(["ada@example.com", "ada@example.com", "ada@example.com"])
    expect(got.slice(0, 3)).toEqual(Array(3).fill({ status: 302, location: VERIFY, retryAfter: null }))
    expect(got.slice(3)).toEqual(
      Array(2).fill({
        status: 302,
        location: `${ORIGIN}/auth/signin?error=RateLimited&retry=600`,
        retryAfter: "600",
      }),
    )
    // The same address in another spelling is the same address.
    expect((await browser.requestLink("  ADA@Example.COM ")).headers.get("location")).toMatch(/error=RateLimited/)
    expect(sent).toHaveLength(3)
    // Ten minutes later the window is over.
    jest.setSystemTime(Date.parse("2026-11-23T10:10:00.001Z"))
    expect((await browser.requestLink("ada@example.com")).headers.get("location")).toBe(VERIFY)
    expect(sent).toHaveLength(4)
  })

  it("an unknown address gives exactly the same answers as a known one", async () => {
    fakeDateOnly(Date.parse("2026-11-23T10:00:00Z"))
    const known = setup({ enabled: true })
    await known.adapter.createUser({ id: "u-ada", email: "ada@example.com", emailVerified: new Date() })
    const unknown = setup({ enabled: true })
    const a = await answers(known.browser, "ada@example.com", 5)
    const b = await answers(unknown.browser, "ada@example.com", 5)
    expect(b).toEqual(a)
    expect(unknown.sent).toHaveLength(3)
  })

  it("email-send-ip: the 11th address from one IP within 10 minutes is refused", async () => {
    const { browser, sent, client } = setup({ enabled: true })
    for (let i = 0; i < 10; i += 1) {
      expect((await browser.requestLink(`person${i}@example.com`)).headers.get("location")).toBe(VERIFY)
    }
    const eleventh = await browser.requestLink("person10@example.com")
    expect(eleventh.headers.get("location")).toMatch(/\/auth\/signin\?error=RateLimited&retry=\d+$/)
    expect(sent).toHaveLength(10)
    // Another IP is another bucket.
    client.ip = "192.0.2.10"
    expect((await browser.requestLink("person11@example.com")).headers.get("location")).toBe(VERIFY)
    expect(sent).toHaveLength(11)
  })
})

describe("EM-13 with the limiter off (the default outside production)", () => {
  it("still sends at most 3 per address, answering as usual (verify-request) and logging the refusal", async () => {
    const { browser, sent, config } = setup(undefined)
    const got = await answers(browser, "flooded@example.com", 5)
    expect(got.map((g) => g.location)).toEqual(Array(5).fill(VERIFY))
    expect(got.every((g) => g.retryAfter === null)).toBe(true)
    expect(sent).toHaveLength(3)
    expect(config.logger.errors.map((e) => e.message)).toContain("Too many sign-in emails for one address")
  })

  it('enabled: false keeps it too; only rules["email-send-address"] = false turns it off', async () => {
    const kept = setup({ enabled: false })
    await answers(kept.browser, "flooded@example.com", 5)
    expect(kept.sent).toHaveLength(3)

    const off = setup({ rules: { "email-send-address": false } })
    await answers(off.browser, "flooded@example.com", 5)
    expect(off.sent).toHaveLength(5)
  })
})
