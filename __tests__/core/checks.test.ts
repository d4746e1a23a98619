// The one check sealer (lib/core/checks.ts): values bound to purpose + provider with an exact expiry, used by the
// OAuth check cookies, the WebAuthn challenge and the sign-out state; and a configured check cookie maxAge is
// honoured, never overridden.
import { Auth } from "../../lib/core"
import { checkSealer, type CheckBinding } from "../../lib/core/kernel/checks"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { decode } from "../../lib/jwt"
import { fakeDateOnly } from "../fixtures/clock"
import { SECRET, makeRequest } from "./helpers"

const T0 = Date.UTC(2026, 0, 1)
const binding: CheckBinding = { purpose: "pkce", provider: "op", salt: "authjs.pkce.code_verifier", maxAge: 120 }

afterEach(() => jest.useRealTimers())

describe("checkSealer", () => {
  it("opens what it sealed, for the same purpose and provider, until maxAge has passed", async () => {
    fakeDateOnly(T0)
    const checks = checkSealer([SECRET])
    const sealed = await checks.seal(binding, "verifier-1")
    expect(await checks.open(binding, sealed)).toEqual({ ok: true, value: "verifier-1" })
    jest.setSystemTime(T0 + 119_000)
    expect(await checks.open(binding, sealed)).toEqual({ ok: true, value: "verifier-1" })
    jest.setSystemTime(T0 + 120_000)
    expect(await checks.open(binding, sealed)).toEqual({ ok: false, reason: "expired" })
  })

  it("refuses another provider, another purpose, a tampered or missing value, another secret", async () => {
    const checks = checkSealer([SECRET])
    const sealed = await checks.seal(binding, "verifier-1")
    expect(await checks.open({ ...binding, provider: "other" }, sealed)).toEqual({
      ok: false,
      reason: "other-provider",
    })
    expect(await checks.open({ ...binding, purpose: "nonce" }, sealed)).toEqual({ ok: false, reason: "other-purpose" })
    // Another salt (another cookie name) is another key: the JWE does not open.
    expect(await checks.open({ ...binding, salt: "authjs.nonce" }, sealed)).toEqual({
      ok: false,
      reason: "undecodable",
    })
    // Tamper in the middle of the ciphertext, where every bit of a base64url character counts.
    const parts = sealed.split(".")
    const at = Math.floor(parts[3].length / 2)
    parts[3] = `${parts[3].slice(0, at)}${parts[3][at] === "A" ? "Q" : "A"}${parts[3].slice(at + 1)}`
    expect(await checks.open(binding, parts.join("."))).toEqual({ ok: false, reason: "undecodable" })
    expect(await checks.open(binding, undefined)).toEqual({ ok: false, reason: "missing" })
    expect(await checks.open(binding, "")).toEqual({ ok: false, reason: "missing" })
    const other = checkSealer(["another-secret-0123456789abcdef0123456789"])
    expect(await other.open(binding, sealed)).toEqual({ ok: false, reason: "undecodable" })
  })

  it("opens with a rotated-out secret (the first seals, every one opens)", async () => {
    const old = await checkSealer([SECRET]).seal(binding, "v")
    const rotated = checkSealer(["new-secret-0123456789abcdef0123456789abcdef", SECRET])
    expect(await rotated.open(binding, old)).toEqual({ ok: true, value: "v" })
  })

  it("keeps the Auth.js-readable wire format of a check cookie: a JWE under the cookie name with `value`", async () => {
    fakeDateOnly(T0)
    const sealed = await checkSealer([SECRET]).seal(binding, "verifier-1")
    const payload = await decode({ token: sealed, secret: SECRET, salt: binding.salt })
    expect(payload).toMatchObject({ value: "verifier-1", provider: "op", purpose: "pkce", expiresAt: T0 + 120_000 })
    expect(payload?.exp).toBe(T0 / 1000 + 120)
  })
})

describe("OAuth check cookies through Auth()", () => {
  const provider = {
    id: "op",
    name: "OP",
    type: "oauth" as const,
    clientId: "client",
    clientSecret: "secret",
    authorization: "https://op.example/authorize",
    token: "https://op.example/token",
    userinfo: "https://op.example/userinfo",
    checks: ["pkce", "state"] as ("pkce" | "state")[],
  }

  async function start(config: AuthConfig): Promise<Response> {
    const csrf = await Auth(makeRequest("/auth/csrf"), config)
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const cookie = csrf.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ")
    return Auth(makeRequest("/auth/signin/op", { body: { csrfToken }, headers: { cookie } }), config)
  }

  // The test origin is https: the cookies carry the __Secure- prefix, and the cookie name is the JWE salt.
  const PKCE = "__Secure-authjs.pkce.code_verifier"
  const STATE = "__Secure-authjs.state"
  const lineOf = (response: Response, name: string) =>
    response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))

  it("a configured check cookie maxAge is honoured, and the sealed value expires with it", async () => {
    fakeDateOnly(T0)
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      providers: [provider],
      cookies: { pkceCodeVerifier: { options: { maxAge: 120 } } },
    }
    const response = await start(config)
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toMatch(/^https:\/\/op\.example\/authorize\?/)
    const pkce = lineOf(response, PKCE)!
    expect(pkce).toContain("Max-Age=120")
    expect(pkce).toContain(`Expires=${new Date(T0 + 120_000).toUTCString()}`)
    // The state cookie keeps the default.
    expect(lineOf(response, STATE)).toContain("Max-Age=900")

    const value = pkce.split(";")[0].split("=")[1]
    const opened = await checkSealer([SECRET]).open({ purpose: "pkce", provider: "op", salt: PKCE }, value)
    expect(opened.ok).toBe(true)
    jest.setSystemTime(T0 + 121_000)
    expect(await checkSealer([SECRET]).open({ purpose: "pkce", provider: "op", salt: PKCE }, value)).toEqual({
      ok: false,
      reason: "expired",
    })
  })

  it("without a configured maxAge the check cookies live 900 s", async () => {
    const response = await start({ secret: SECRET, trustHost: true, providers: [provider] })
    expect(lineOf(response, PKCE)).toContain("Max-Age=900")
    expect(lineOf(response, STATE)).toContain("Max-Age=900")
  })
})
