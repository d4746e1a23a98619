// The email actions through Auth() with the generic Email provider (no SMTP): hashing secrets and expiry handling.
import type { Adapter, VerificationToken } from "../../../lib/storage/adapter"
import Email from "../../../lib/providers/email"
import type { SendVerificationRequestParams } from "../../../lib/providers/types"
import { Browser, emailConfig, locationOf, ORIGIN, recordingAdapter, SECRET, tokenHash } from "./harness"

const VERIFICATION_ERROR = `${ORIGIN}/auth/error?error=Verification`

function capturing(extra: Partial<Parameters<typeof Email>[0]> = {}) {
  const sent: SendVerificationRequestParams[] = []
  const provider = Email({ ...extra, sendVerificationRequest: (params) => void sent.push(params) })
  return { provider, sent }
}

describe("the hashing secret", () => {
  it("is the provider's own secret when set", async () => {
    const { provider, sent } = capturing({ secret: "provider-secret-0123456789abcdef" })
    const { config, createdTokens } = emailConfig([provider])
    const browser = new Browser(config)
    await browser.requestLink("ada@example.test", { provider: "email" })
    expect(createdTokens[0]!.token).toBe(tokenHash(sent[0]!.token, "provider-secret-0123456789abcdef"))
    expect(locationOf(await browser.openLink(sent[0]!.url))).toBe(ORIGIN)
  })

  it.each([
    ["an empty string", ""],
    ["an empty array", [] as string[]],
  ])("falls back to the config's secret when the provider's is %s", async (_label, secret) => {
    const { provider, sent } = capturing({ secret })
    const { config, createdTokens } = emailConfig([provider])
    const browser = new Browser(config)
    await browser.requestLink("ada@example.test", { provider: "email" })
    expect(createdTokens[0]!.token).toBe(tokenHash(sent[0]!.token, SECRET))
    expect(createdTokens[0]!.token).not.toBe(tokenHash(sent[0]!.token, "undefined"))
    expect(locationOf(await browser.openLink(sent[0]!.url))).toBe(ORIGIN)
  })
})

describe("the expiry returned by the adapter", () => {
  /** A recording adapter whose useVerificationToken reports `expires` as `reshape` makes it. */
  function adapterReturning(reshape: (expires: Date) => unknown) {
    const recording = recordingAdapter()
    const use = recording.adapter.useVerificationToken.bind(recording.adapter)
    const adapter: Adapter = recording.adapter
    adapter.useVerificationToken = async (params) => {
      const token = await use(params)
      return token ? ({ ...token, expires: reshape(token.expires) } as unknown as VerificationToken) : null
    }
    return recording
  }

  it("an ISO string (a JSON-backed adapter) is read as a date: a valid link works", async () => {
    const { provider, sent } = capturing()
    const { config } = emailConfig(
      [provider],
      {},
      adapterReturning((d) => d.toISOString()),
    )
    const browser = new Browser(config)
    await browser.requestLink("ada@example.test", { provider: "email" })
    expect(locationOf(await browser.openLink(sent[0]!.url))).toBe(ORIGIN)
  })

  it("an expired ISO string is expired", async () => {
    const { provider, sent } = capturing()
    const { config } = emailConfig(
      [provider],
      {},
      adapterReturning(() => new Date(Date.now() - 1000).toISOString()),
    )
    const browser = new Browser(config)
    await browser.requestLink("ada@example.test", { provider: "email" })
    expect(locationOf(await browser.openLink(sent[0]!.url))).toBe(VERIFICATION_ERROR)
  })

  it.each([
    ["garbage", () => "not a date"],
    ["undefined", () => undefined],
    ["null", () => null],
    ["NaN", () => Number.NaN],
  ])("a %s expiry fails closed: Verification", async (_label, reshape) => {
    const { provider, sent } = capturing()
    const { config } = emailConfig([provider], {}, adapterReturning(reshape))
    const browser = new Browser(config)
    await browser.requestLink("ada@example.test", { provider: "email" })
    expect(locationOf(await browser.openLink(sent[0]!.url))).toBe(VERIFICATION_ERROR)
    expect(await browser.session()).toBeNull()
  })
})

describe("malformed callback requests", () => {
  it.each([
    ["no token", (u: URL) => u.searchParams.delete("token")],
    ["an empty token", (u: URL) => u.searchParams.set("token", "")],
    ["no email", (u: URL) => u.searchParams.delete("email")],
    ["an invalid email", (u: URL) => u.searchParams.set("email", '"a@b"@example.test')],
  ])("%s → Verification, and the real link still works", async (_label, mangle) => {
    const { provider, sent } = capturing()
    const { config } = emailConfig([provider])
    const browser = new Browser(config)
    await browser.requestLink("ada@example.test", { provider: "email" })
    const bad = new URL(sent[0]!.url)
    mangle(bad)
    expect(locationOf(await browser.openLink(bad.href))).toBe(VERIFICATION_ERROR)
    expect(locationOf(await browser.openLink(sent[0]!.url))).toBe(ORIGIN)
  })
})
