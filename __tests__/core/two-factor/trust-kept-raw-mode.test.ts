// Regression: with the `raw` marker, `Auth()` rethrows an `AuthError` instead of answering it, and dropped every
// cookie the error answer carries, so a trusted device whose sign-in failed after spending its trust cookie lost its
// trust (the same bug as a server-side `signIn()`, trust-kept-server-sign-in.test.ts). The thrown error now carries
// those cookies as `cookies`, in the form of the internal result's, for the framework to write.
import { createHmac, randomBytes } from "node:crypto"
import { Auth, raw, type RawAuthError } from "../../../lib/core"
import { AuthError, CredentialsSignin } from "../../../lib/errors"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import Credentials from "../../../lib/providers/credentials"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { sealTotpSecret } from "../../../lib/core/methods/two-factor/secret"
import { fakeDateOnly } from "../../fixtures/clock"
import { SECRET, applyCookies, makeRequest } from "../helpers"

type Jar = Record<string, string>
const USER = { id: "user-alice", email: "alice@example.test", name: "Alice" }
const T0 = Date.parse("2026-03-01T10:00:00.000Z")
const HOUR = 3_600_000

/** RFC 6238 (SHA-1, 6 digits, 30 s), written independently of the library. */
function totpNow(key: Buffer): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 1000 / 30)))
  const mac = createHmac("sha1", key).update(counter).digest()
  const o = mac[19]! & 15
  return String((mac.readUInt32BE(o) & 0x7fffffff) % 1_000_000).padStart(6, "0")
}

/**
 * alice with a TOTP second factor, database sessions; `broken.on` makes the adapter's `createSession` fail (an
 * `AdapterError`, which raw mode rethrows: an error that is no `AuthError` is answered as before, cookies included).
 */
async function setup() {
  const adapter = MemoryAdapter()
  const broken = { on: false }
  await adapter.createUser({ ...USER, emailVerified: null })
  const createSession = adapter.createSession.bind(adapter)
  adapter.createSession = (session) => {
    if (broken.on) throw new Error("database down")
    return createSession(session)
  }
  const key = randomBytes(20)
  const now = new Date()
  await adapter.upsertTwoFactor({
    userId: USER.id,
    secret: await sealTotpSecret(key, USER.id, [SECRET]),
    verifiedAt: now,
    lastUsedStep: 0,
    backupCodes: [],
    version: 0,
    createdAt: now,
    updatedAt: now,
  })
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "database" },
    twoFactor: { issuer: "Gatehouse Test" },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: (c) => (c.username === "alice" && c.password === "wonderland" ? USER : null),
      }),
    ],
  }
  return { config, key, broken }
}

/** A request of the browser `jar` posting `fields` with a fresh CSRF token. */
async function posting(config: AuthConfig, path: string, jar: Jar, fields: Record<string, string>, json = false) {
  const csrf = await Auth(makeRequest("/auth/csrf", { cookies: jar }), config)
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const cookies = applyCookies(jar, csrf)
  return { request: makeRequest(path, { cookies, json, body: { csrfToken, ...fields } }), cookies }
}

const CREDENTIALS = { username: "alice", password: "wonderland", callbackUrl: "/home" }
const trustName = (jar: Jar) => Object.keys(jar).find((name) => name.endsWith("gatehouse.two-factor-trust"))!

/** Signs alice in with her code and "trust this device"; the browser's trust cookie. */
async function trustedBrowser(config: AuthConfig, key: Buffer): Promise<Jar> {
  const first = await posting(config, "/auth/callback/credentials", {}, CREDENTIALS)
  const challenged = await Auth(first.request, config)
  expect(challenged.headers.get("location")).toMatch(/\/auth\/two-factor$/)
  const jar = applyCookies(first.cookies, challenged)
  const second = await posting(config, "/auth/two-factor", jar, { code: totpNow(key), trustDevice: "1" })
  const trusted = applyCookies(second.cookies, await Auth(second.request, config))
  const name = trustName(trusted)
  expect(trusted[name]).toBeTruthy()
  return { [name]: trusted[name]! }
}

describe("Auth() with the raw marker, when a trusted device's sign-in fails", () => {
  afterEach(() => jest.useRealTimers())

  it("throws the error with the trust cookie handed back, which skips the second factor next time", async () => {
    fakeDateOnly(T0)
    const { config, key, broken } = await setup()
    const jar = await trustedBrowser(config, key)
    const name = trustName(jar)

    jest.setSystemTime(T0 + HOUR)
    broken.on = true
    const attempt = await posting(config, "/auth/callback/credentials", jar, CREDENTIALS)
    const error = (await Auth(attempt.request, { ...config, raw }).catch((e: unknown) => e)) as RawAuthError
    expect(error).toBeInstanceOf(AuthError)
    expect(error.type).toBe("AdapterError")
    const restored = error.cookies?.find((cookie) => cookie.name === name)
    expect(restored?.value).toBeTruthy()
    expect(restored?.value).not.toBe(jar[name])
    // The lifetime the spent cookie had left: a failed sign-in never lengthens trust.
    expect(restored?.options.maxAge).toBe(2_592_000 - HOUR / 1000)
    expect(error.cookies?.some((cookie) => cookie.name.endsWith("authjs.session-token") && cookie.value)).toBe(false)

    // The framework writes the cookies; the restored trust skips the second factor.
    broken.on = false
    const again = await posting(config, "/auth/callback/credentials", { [name]: restored!.value }, CREDENTIALS)
    const signedIn = await Auth(again.request, config)
    expect(signedIn.headers.get("location")).toMatch(/\/home$/)
  })

  it("throws the error itself, with no cookies, when its answer carries none", async () => {
    const { config } = await setup()
    const wrong = { username: "alice", password: "nope" }
    const attempt = await posting(config, "/auth/callback/credentials", {}, wrong, true)
    const error = (await Auth(attempt.request, { ...config, raw }).catch((e: unknown) => e)) as RawAuthError
    expect(error).toBeInstanceOf(CredentialsSignin)
    expect(error.cookies).toBeUndefined()
  })
})
