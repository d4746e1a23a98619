// Two-factor sign-in in the Fetch flavour (the members with a Request, cookies through applyCookies), and the rules
// every flavour shares: construction checks, the route off without `twoFactor`, the member errors, pages.twoFactor.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { hashSessionToken } from "../../lib/core/session/token"
import Credentials from "../../lib/providers/credentials"
import { Gatehouse } from "../../lib/web"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { InvalidConfig, MissingAdapterMethods } from "../../lib/errors"
import { totpCode as totp } from "../fixtures/totp"

const COOKIE = "authjs.session-token"
const SECRET = "web-two-factor-secret-0123456789abcdef"
const silent = { error: () => undefined, warn: () => undefined, debug: () => undefined }

const base = (extra: Partial<AuthConfig> = {}): AuthConfig => ({
  secret: SECRET,
  trustHost: true,
  logger: silent,
  providers: [Credentials({ credentials: {}, authorize: () => null })],
  ...extra,
})

async function setup(extra: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter()
  await adapter.createUser({ id: "u1", name: "Ada", email: "ada@example.test", emailVerified: null })
  const token = "web-two-factor-session-token-01"
  await adapter.createSession({
    sessionToken: hashSessionToken(token),
    userId: "u1",
    expires: new Date(Date.now() + 3_600_000),
    createdAt: new Date(),
  })
  const gh = Gatehouse(base({ adapter, twoFactor: { issuer: "Web" }, ...extra }))
  const request = () => new Request("http://app.example/account", { headers: { cookie: `${COOKIE}=${token}` } })
  return { adapter, gh, request }
}

describe("two-factor members in the Fetch flavour", () => {
  it("status, enable, confirm, regenerate and disable with a Request", async () => {
    const { adapter, gh, request } = await setup()
    expect(await gh.twoFactorStatus(request())).toMatchObject({ enabled: false, pendingEnrolment: false, methods: [] })
    const enrolment = await gh.enableTotp(request())
    expect(enrolment.uri).toBe(
      `otpauth://totp/Web:ada%40example.test?secret=${enrolment.secret}&issuer=Web&algorithm=SHA1&digits=6&period=30`,
    )
    expect(await gh.twoFactorStatus(request())).toMatchObject({ enabled: false, pendingEnrolment: true })
    const { backupCodes } = await gh.verifyTotpEnrolment(request(), { code: totp(enrolment.secret) })
    expect(backupCodes).toHaveLength(10)
    const status = await gh.twoFactorStatus(request())
    expect(status).toMatchObject({ enabled: true, backupCodesLeft: 10, methods: ["totp"], enrolmentRequired: false })
    expect(typeof status!.enabledAt).toBe("number")
    await expect(gh.enableTotp(request())).rejects.toMatchObject({ type: "TwoFactorAlreadyEnabled", status: 409 })
    const regenerated = await gh.regenerateBackupCodes(request(), { code: backupCodes[0]! })
    expect(regenerated.backupCodes).toHaveLength(10)
    await expect(gh.disableTotp(request(), { code: backupCodes[1]! })).rejects.toMatchObject({
      type: "TwoFactorInvalid",
      code: "two_factor_invalid",
      status: 400,
    })
    await expect(gh.disableTotp(request(), { code: totp(enrolment.secret, 1) })).resolves.toBe(true)
    expect(await adapter.getTwoFactor("u1")).toBeNull()
  })

  it("without a session: status null, changes SessionRequired; no enrolment: NotFound; non-string code: TwoFactorInvalid", async () => {
    const { gh, request } = await setup()
    const anonymous = new Request("http://app.example/account")
    await expect(gh.twoFactorStatus(anonymous)).resolves.toBeNull()
    await expect(gh.enableTotp(anonymous)).rejects.toMatchObject({ type: "SessionRequired", status: 401 })
    await expect(gh.verifyTotpEnrolment(request(), { code: "123456" })).rejects.toMatchObject({
      type: "NotFound",
      status: 404,
    })
    await gh.enableTotp(request())
    await expect(gh.verifyTotpEnrolment(request(), { code: 123456 as unknown as string })).rejects.toMatchObject({
      type: "TwoFactorInvalid",
    })
  })

  it("members of an app without twoFactor throw InvalidConfig; its two-factor route is not one of ours", async () => {
    const gh = Gatehouse(base({ adapter: MemoryAdapter() }))
    await expect(gh.twoFactorStatus(new Request("http://app.example/"))).rejects.toThrow(InvalidConfig)
    await expect(gh.twoFactorStatus(new Request("http://app.example/"))).rejects.toThrow("twoFactor is not configured")
    const res = (await gh.handle(new Request("http://app.example/auth/two-factor")))!
    expect(res.status).toBe(400)
    expect(await res.json()).toBe("Bad request.")
  })

  it("a GET of the route without a pending sign-in: the sign-in page, or 401 JSON", async () => {
    const { gh } = await setup()
    const browser = (await gh.handle(new Request("http://app.example/auth/two-factor")))!
    expect(browser.status).toBe(302)
    expect(browser.headers.get("location")).toBe("http://app.example/auth/signin?error=TwoFactorRequired")
    const api = (await gh.handle(
      new Request("http://app.example/auth/two-factor", { headers: { accept: "application/json" } }),
    ))!
    expect(api.status).toBe(401)
    expect(await api.json()).toEqual({ error: "TwoFactorRequired" })
  })
})

describe("twoFactor construction checks", () => {
  it("unknown keys, bad values, a missing email provider, adapters without the methods", () => {
    const adapter = MemoryAdapter()
    expect(() => Gatehouse(base({ adapter, twoFactor: { nope: 1 } as never }))).toThrow("Unknown option twoFactor.nope")
    expect(() => Gatehouse(base({ adapter, twoFactor: { issuer: "a:b" } }))).toThrow(InvalidConfig)
    expect(() => Gatehouse(base({ adapter, twoFactor: { trustDevice: { maxAge: 60 } } }))).toThrow(InvalidConfig)
    expect(() => Gatehouse(base({ adapter, twoFactor: { methods: ["email"] } }))).toThrow(
      "twoFactor.methods includes email but no email provider is configured",
    )
    const { getTwoFactor: _g, updateTwoFactor: _u, ...partial } = adapter
    expect(() => Gatehouse(base({ adapter: partial, twoFactor: {} }))).toThrow(MissingAdapterMethods)
    expect(() => Gatehouse(base({ adapter: partial, twoFactor: {} }))).toThrow("getTwoFactor, updateTwoFactor")
  })
})

describe("secret rotation", () => {
  it("a row written under an old secret verifies with a code and is re-encrypted under the new one", async () => {
    const { openTotpSecret } = await import("../../lib/core/methods/two-factor/secret")
    const adapter = MemoryAdapter()
    await adapter.createUser({ id: "u1", name: "Ada", email: "ada@example.test", emailVerified: null })
    const token = "web-two-factor-rotation-token-01"
    await adapter.createSession({
      sessionToken: hashSessionToken(token),
      userId: "u1",
      expires: new Date(Date.now() + 3_600_000),
      createdAt: new Date(),
    })
    const request = () => new Request("http://app.example/account", { headers: { cookie: `${COOKIE}=${token}` } })
    const OLD = "old-rotation-secret-0123456789abcdef"
    const NEW = "new-rotation-secret-0123456789abcdef"
    const before = Gatehouse(base({ secret: OLD, adapter, twoFactor: {} }))
    const { secret } = await before.enableTotp(request())
    await before.verifyTotpEnrolment(request(), { code: totp(secret) })
    const sealedOld = (await adapter.getTwoFactor("u1"))!.secret
    expect((await openTotpSecret(sealedOld, "u1", [NEW])).ok).toBe(false)

    // The sessions stay valid across the rotation (database sessions); the old secret still decrypts.
    const after = Gatehouse(base({ secret: [NEW, OLD], adapter, twoFactor: {} }))
    const { backupCodes } = await after.regenerateBackupCodes(request(), { code: totp(secret, 1) })
    expect(backupCodes).toHaveLength(10)
    const row = (await adapter.getTwoFactor("u1"))!
    expect(row.secret).not.toBe(sealedOld)
    expect((await openTotpSecret(row.secret, "u1", [NEW])).ok).toBe(true)
    // A secret copied into another user's row does not open.
    expect((await openTotpSecret(row.secret, "u2", [NEW, OLD])).ok).toBe(false)
  })
})
