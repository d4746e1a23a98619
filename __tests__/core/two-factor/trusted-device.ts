// A trusted device for the regressions where a sign-in fails after spending its two-factor trust cookie (raw mode
// `Auth()`, the Fetch flavour's server calls): alice with a TOTP second factor, database sessions, and a switch that
// makes the adapter's `createSession` fail. Requests go through `answer` (the core's `Auth`, or a flavour's `handle`).
import type { AuthConfig } from "../../../lib/core/kernel/types"
import Credentials from "../../../lib/providers/credentials"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { enrolTotp, totpCode } from "../../fixtures/totp"
import { SECRET, applyCookies, makeRequest } from "../helpers"

export type Jar = Record<string, string>
export type Answer = (request: Request) => Promise<Response>

const USER = { id: "user-alice", email: "alice@example.test", name: "Alice" }
/** alice's form: the first factor, landing on `/home`. */
export const CREDENTIALS = { username: "alice", password: "wonderland", callbackUrl: "/home" }
/** The trust cookie's lifetime, in seconds (the default `twoFactor.trustDevice.maxAge`). */
export const TRUST_MAX_AGE = 2_592_000

/**
 * alice with a TOTP second factor, database sessions; `broken.on` makes the adapter's `createSession` fail (an
 * `AdapterError`, after the trust cookie was spent).
 */
export async function trustSetup() {
  const adapter = MemoryAdapter()
  const broken = { on: false }
  await adapter.createUser({ ...USER, emailVerified: null })
  const createSession = adapter.createSession.bind(adapter)
  adapter.createSession = (session) => {
    if (broken.on) throw new Error("database down")
    return createSession(session)
  }
  const key = await enrolTotp(adapter, USER.id, [SECRET])
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

/** A request of the browser `jar` posting `fields` (as a form, or JSON) with a fresh CSRF token. */
export async function posting(answer: Answer, path: string, jar: Jar, fields: Record<string, string>, json = false) {
  const csrf = await answer(makeRequest("/auth/csrf", { cookies: jar }))
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const cookies = applyCookies(jar, csrf)
  return { request: makeRequest(path, { cookies, json, body: { csrfToken, ...fields } }), cookies }
}

/** The name of the trust cookie in `jar` (its prefix follows the origin). */
export const trustName = (jar: Jar) => Object.keys(jar).find((name) => name.endsWith("gatehouse.two-factor-trust"))!

/** Signs alice in with her code and "trust this device"; the browser's trust cookie. */
export async function trustedBrowser(answer: Answer, key: Buffer): Promise<Jar> {
  const first = await posting(answer, "/auth/callback/credentials", {}, CREDENTIALS)
  const challenged = await answer(first.request)
  expect(challenged.headers.get("location")).toMatch(/\/auth\/two-factor$/)
  const jar = applyCookies(first.cookies, challenged)
  const second = await posting(answer, "/auth/two-factor", jar, { code: totpCode(key), trustDevice: "1" })
  const trusted = applyCookies(second.cookies, await answer(second.request))
  const name = trustName(trusted)
  expect(trusted[name]).toBeTruthy()
  return { [name]: trusted[name]! }
}
