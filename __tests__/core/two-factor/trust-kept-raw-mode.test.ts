// Regression: with the `raw` marker, `Auth()` rethrows an `AuthError` instead of answering it, and dropped every
// cookie the error answer carries, so a trusted device whose sign-in failed after spending its trust cookie lost its
// trust (the same bug as a server-side `signIn()`, trust-kept-server-sign-in.test.ts). The thrown error now carries
// those cookies as `cookies`, in the form of the internal result's, for the framework to write.
import { Auth, raw, type RawAuthError } from "../../../lib/core"
import { AuthError, CredentialsSignin } from "../../../lib/errors"
import { fakeDateOnly } from "../../fixtures/clock"
import { CREDENTIALS, TRUST_MAX_AGE, posting, trustName, trustSetup, trustedBrowser } from "./trusted-device"

const T0 = Date.parse("2026-03-01T10:00:00.000Z")
const HOUR = 3_600_000

describe("Auth() with the raw marker, when a trusted device's sign-in fails", () => {
  afterEach(() => jest.useRealTimers())

  it("throws the error with the trust cookie handed back, which skips the second factor next time", async () => {
    fakeDateOnly(T0)
    const { config, key, broken } = await trustSetup()
    const answer = (request: Request) => Auth(request, config)
    const jar = await trustedBrowser(answer, key)
    const name = trustName(jar)

    jest.setSystemTime(T0 + HOUR)
    broken.on = true
    const attempt = await posting(answer, "/auth/callback/credentials", jar, CREDENTIALS)
    const error = (await Auth(attempt.request, { ...config, raw }).catch((e: unknown) => e)) as RawAuthError
    expect(error).toBeInstanceOf(AuthError)
    expect(error.type).toBe("AdapterError")
    const restored = error.cookies?.find((cookie) => cookie.name === name)
    expect(restored?.value).toBeTruthy()
    expect(restored?.value).not.toBe(jar[name])
    // The lifetime the spent cookie had left: a failed sign-in never lengthens trust.
    expect(restored?.options.maxAge).toBe(TRUST_MAX_AGE - HOUR / 1000)
    expect(error.cookies?.some((cookie) => cookie.name.endsWith("authjs.session-token") && cookie.value)).toBe(false)

    // The framework writes the cookies; the restored trust skips the second factor.
    broken.on = false
    const again = await posting(answer, "/auth/callback/credentials", { [name]: restored!.value }, CREDENTIALS)
    const signedIn = await Auth(again.request, config)
    expect(signedIn.headers.get("location")).toMatch(/\/home$/)
  })

  it("throws the error itself, with no cookies, when its answer carries none", async () => {
    const { config } = await trustSetup()
    const wrong = { username: "alice", password: "nope" }
    const attempt = await posting((r) => Auth(r, config), "/auth/callback/credentials", {}, wrong, true)
    const error = (await Auth(attempt.request, { ...config, raw }).catch((e: unknown) => e)) as RawAuthError
    expect(error).toBeInstanceOf(CredentialsSignin)
    expect(error.cookies).toBeUndefined()
  })
})
