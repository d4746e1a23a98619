// A trusted device for the regressions where a sign-in fails after spending its two-factor trust cookie (raw mode
// `Auth()`, the Fetch flavour's server calls): alice with a TOTP second factor, database sessions, and a switch that
// makes the adapter's `createSession` fail. Requests go through `answer` (the core's `Auth`, or a flavour's `handle`).
import { createHmac, randomBytes } from "node:crypto"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import Credentials from "../../../lib/providers/credentials"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { sealTotpSecret } from "../../../lib/core/methods/two-factor/secret"
import { SECRET, applyCookies, makeRequest } from "../helpers"

export type Jar = Record<string, string>
export type Answer = (request: Request) => Promise<Response>

const USER = { id: "user-alice", email: "alice@example.test", name: "Alice" }
/** alice's form: the first factor, landing on `/home`. */
export const CREDENTIALS = { username: "alice", password: "wonderland", callbackUrl: "/home" }
/** The trust cookie's lifetime, in seconds (the default `twoFactor.trustDevice.maxAge`). */
export const TRUST_MAX_AGE = 2_592_000

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
  const second = await posting(answer, "/auth/two-factor", jar, { code: totpNow(key), trustDevice: "1" })
  const trusted = applyCookies(second.cookies, await answer(second.request))
  const name = trustName(trusted)
  expect(trusted[name]).toBeTruthy()
  return { [name]: trusted[name]! }
}
