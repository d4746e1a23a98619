// The generic Email provider through Auth() (no SMTP): what a custom sendVerificationRequest receives.
import Email from "../../../lib/providers/email"
import type { SendVerificationRequestParams } from "../../../lib/providers/types"
import { Browser, emailConfig, locationOf, ORIGIN, tokenHash } from "./harness"

describe("the generic Email provider", () => {
  it("calls sendVerificationRequest with identifier, url, token, expires, provider, theme and request", async () => {
    const calls: SendVerificationRequestParams[] = []
    let body: unknown
    const provider = Email({
      maxAge: 600,
      sendVerificationRequest: async (params) => {
        calls.push(params)
        body = await params.request.json()
      },
    })
    const theme = { brandColor: "#123456" }
    const { config, createdTokens } = emailConfig([provider], { theme })
    const browser = new Browser(config)
    const before = Date.now()
    expect(locationOf(await browser.requestLink("Cy@Example.test", { provider: "email" }))).toBe(
      `${ORIGIN}/auth/verify-request?provider=email&type=email`,
    )
    expect(calls).toHaveLength(1)
    const params = calls[0]!
    expect(Object.keys(params).sort()).toEqual([
      "expires",
      "identifier",
      "provider",
      "purpose",
      "request",
      "theme",
      "token",
      "url",
    ])
    expect(params.purpose).toBe("sign-in")
    expect(params.identifier).toBe("cy@example.test")
    expect(params.token).toMatch(/^[0-9a-f]{64}$/)
    expect(params.url).toBe(
      `${ORIGIN}/auth/callback/email?${new URLSearchParams({ callbackUrl: ORIGIN, token: params.token, email: "cy@example.test" })}`,
    )
    expect(params.expires.valueOf()).toBeGreaterThanOrEqual(before + 600_000)
    expect(params.expires.valueOf()).toBeLessThanOrEqual(Date.now() + 600_000)
    expect(params.expires.valueOf()).toBe(createdTokens[0]!.expires.valueOf())
    expect(params.provider).toMatchObject({ id: "email", name: "Email", type: "email", maxAge: 600 })
    expect(params.theme).toMatchObject(theme)
    expect(params.request).toBeInstanceOf(Request)
    expect(params.request.method).toBe("POST")
    expect(params.request.url).toBe(`${ORIGIN}/auth/signin/email`)
    // As in the reference, the request carries the submitted fields as a JSON body the sender can read.
    expect(body).toMatchObject({ email: "Cy@Example.test" })

    expect(locationOf(await browser.openLink(params.url))).toBe(ORIGIN)
    expect((await browser.session())?.user?.email).toBe("cy@example.test")
  })

  it("generateVerificationToken and normalizeIdentifier are used; a custom normaliser cannot let two recipients in", async () => {
    const sent: string[] = []
    const provider = Email({
      generateVerificationToken: () => "fixed-token-for-test",
      normalizeIdentifier: (id) => id.replace(/\+[^@]*/, ""),
      sendVerificationRequest: ({ identifier }) => {
        sent.push(identifier)
      },
    })
    const { config, createdTokens } = emailConfig([provider])
    const browser = new Browser(config)
    await browser.requestLink("dot+tag@example.test", { provider: "email" })
    expect(sent).toEqual(["dot@example.test"])
    expect(createdTokens[0]!.token).toBe(tokenHash("fixed-token-for-test"))
    const rejected = await browser.requestLink("a+x@example.test,b@evil.test", { provider: "email" })
    expect(locationOf(rejected)).toBe(`${ORIGIN}/auth/signin?error=EmailSignInError`)
    expect(sent).toHaveLength(1)
  })

  it("a signIn callback returning false → AccessDenied and the sender is never called", async () => {
    const send = jest.fn()
    const { config, createdTokens } = emailConfig([Email({ sendVerificationRequest: send })], {
      callbacks: { signIn: () => false },
    })
    const response = await new Browser(config).requestLink("deny@example.test", { provider: "email" })
    expect(locationOf(response)).toBe(`${ORIGIN}/auth/error?error=AccessDenied`)
    expect(send).not.toHaveBeenCalled()
    expect(createdTokens).toEqual([])
  })
})
