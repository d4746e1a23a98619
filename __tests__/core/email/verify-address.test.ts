// First-hour review row 18 / issue 9: the verify-request page names the (masked) address the link went to. The
// address travels in a sealed, short-lived cookie, so the page's URL stays Auth.js's `?provider=…&type=email`.
import { maskAddress } from "../../../lib/core/methods/email/email"
import Email from "../../../lib/providers/email"
import { Browser, emailConfig, locationOf, ORIGIN } from "./harness"

const COOKIE = "__Secure-gatehouse.verify-address"

function setup(overrides: Parameters<typeof emailConfig>[1] = {}) {
  const sent: string[] = []
  const providers = [
    Email({ id: "email", sendVerificationRequest: async ({ identifier }) => void sent.push(identifier) }),
    Email({ id: "other", sendVerificationRequest: async ({ identifier }) => void sent.push(identifier) }),
  ]
  const { config } = emailConfig(providers, overrides)
  return { config, sent }
}

async function pageText(browser: Browser, provider = "email"): Promise<string> {
  const response = await browser.fetch(`/auth/verify-request?provider=${provider}&type=email`)
  expect(response.status).toBe(200)
  return response.text()
}

describe("maskAddress", () => {
  it.each([
    ["ada@example.com", "a…@example.com"],
    ["x@example.org", "x…@example.org"],
    ["émile@exemple.fr", "é…@exemple.fr"],
    ["not-an-address", "…"],
    ["@example.com", "…"],
  ])("%s -> %s", (input, masked) => {
    expect(maskAddress(input)).toBe(masked)
  })
})

describe("the verify-request page shows where the link went", () => {
  it("names the masked address after a sign-in request, in the same browser only", async () => {
    const { config, sent } = setup()
    const browser = new Browser(config)
    expect(locationOf(await browser.requestLink("Ada.Lovelace@Example.test", { provider: "email" }))).toBe(
      `${ORIGIN}/auth/verify-request?provider=email&type=email`,
    )
    expect(sent).toEqual(["ada.lovelace@example.test"])
    expect(browser.cookies[COOKIE]).toBeTruthy()
    // the cookie is sealed: neither the address nor its masked form is readable in it
    expect(browser.cookies[COOKIE]).not.toContain("example")
    const html = await pageText(browser)
    expect(html).toContain('<strong class="address">a…@example.test</strong>')
    expect(html).not.toContain("ada.lovelace")

    const stranger = new Browser(config)
    const generic = await pageText(stranger)
    expect(generic).toContain("has been sent to your email address")
    expect(generic).not.toContain("example.test")
  })

  it("sets the cookie HttpOnly, SameSite=Lax, Secure, for 10 minutes", async () => {
    const { config } = setup()
    const browser = new Browser(config)
    const csrfToken = await browser.csrfToken()
    const response = await browser.fetch("/auth/signin/email", { csrfToken, email: "ada@example.test" })
    const line = response.headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`))
    expect(line).toMatch(/; Max-Age=600/)
    expect(line).toMatch(/; HttpOnly/)
    expect(line).toMatch(/; Secure/)
    expect(line).toMatch(/; SameSite=Lax/)
  })

  it("ignores a forged, foreign-provider or expired cookie", async () => {
    const { config } = setup()
    const forged = new Browser(config)
    forged.cookies[COOKIE] = "a…@evil.test"
    expect(await pageText(forged)).not.toContain("evil.test")

    const browser = new Browser(config)
    await browser.requestLink("ada@example.test", { provider: "email" })
    // sealed for "email": the page of another email provider does not show it
    expect(await pageText(browser, "other")).not.toContain("example.test")

    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] })
    try {
      jest.setSystemTime(Date.now() + 601_000)
      expect(await pageText(browser)).not.toContain("example.test")
    } finally {
      jest.useRealTimers()
    }
  })

  it("answers a throttled request exactly like a sent one (EM-13 uniformity)", async () => {
    const { config, sent } = setup()
    const browser = new Browser(config)
    for (let i = 0; i < 4; i++) {
      expect(locationOf(await browser.requestLink("bob@example.test", { provider: "email" }))).toBe(
        `${ORIGIN}/auth/verify-request?provider=email&type=email`,
      )
    }
    expect(sent).toHaveLength(3)
    expect(await pageText(browser)).toContain('<strong class="address">b…@example.test</strong>')
  })

  it("sets nothing when sending fails", async () => {
    const { config } = emailConfig([
      Email({
        id: "email",
        sendVerificationRequest: async () => {
          throw new Error("smtp down")
        },
      }),
    ])
    const browser = new Browser(config)
    const response = await browser.requestLink("ada@example.test", { provider: "email" })
    expect(response.headers.get("location")).toContain("error=EmailSignIn")
    expect(browser.cookies[COOKIE]).toBeUndefined()
  })
})
