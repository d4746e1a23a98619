// Passkey ceremonies a relying party must refuse, through Auth() with the software authenticator. PK-03b: client data
// saying `crossOrigin: true` (a ceremony inside someone else's iframe) was accepted. And, found by mutating the code:
// no test sent a phishing relay's own `Origin` header with its assertion, so trusting that header passed every test.
import { Auth } from "../../lib/core"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import Passkey from "../../lib/providers/passkey"
import type { WebAuthnUserConfig } from "../../lib/providers/webauthn"
import { Client, newAuthenticator, passkeyConfig, RP_ORIGIN, SESSION_COOKIE } from "../core/webauthn/harness"
import { SECRET } from "../core/helpers"

const email = "ada@example.com"
const verificationError = `${RP_ORIGIN}/auth/error?error=WebAuthnVerificationError`

function location(response: Response): string {
  return response.headers.get("location") ?? ""
}

/** A user registered with a passkey (signed in on another client), and a fresh browser to try the passkey in. */
async function signedUp(provider: WebAuthnUserConfig = {}) {
  const adapter = MemoryAdapter()
  const { config, recorder } = passkeyConfig(adapter, { provider })
  const authenticator = newAuthenticator()
  const response = await new Client(config).register(authenticator, `email=${encodeURIComponent(email)}`)
  if (location(response) !== RP_ORIGIN) throw new Error(`sign-up failed: ${location(response)}`)
  const user = (await adapter.getUserByEmail(email))!
  return { adapter, config, recorder, authenticator, user, browser: new Client(config) }
}

const portal = "https://portal.example"
const allowPortal: WebAuthnUserConfig = {
  relyingParty: { id: "localhost", name: "Gatehouse test", origin: RP_ORIGIN, allowCrossOrigin: [portal] },
}

describe("PK-03b", () => {
  it.each([
    ["crossOrigin: true without a topOrigin", { crossOrigin: true }],
    ["crossOrigin: true from an unknown top origin", { crossOrigin: true, topOrigin: "https://evil.example" }],
    ["crossOrigin: true from the relying party's own origin as topOrigin", { crossOrigin: true, topOrigin: RP_ORIGIN }],
  ])("an assertion with %s is refused: no session", async (_name, overrides) => {
    const { browser, authenticator, recorder } = await signedUp()
    const response = await browser.authenticate(authenticator, overrides)
    expect(response.status).toBe(302)
    expect(location(response)).toBe(verificationError)
    expect(browser.cookies[SESSION_COOKIE]).toBeUndefined()
    expect(recorder.sessionsCreated).toBe(1)
  })

  it("a registration made in a cross-origin iframe is refused: no user, no credential", async () => {
    const adapter = MemoryAdapter()
    const { config, recorder } = passkeyConfig(adapter)
    const client = new Client(config)
    const response = await client.register(newAuthenticator(), `email=${encodeURIComponent(email)}`, {
      crossOrigin: true,
      topOrigin: "https://evil.example",
    })
    expect(location(response)).toBe(verificationError)
    await expect(adapter.getUserByEmail(email)).resolves.toBeNull()
    expect(recorder.sessionsCreated).toBe(0)
  })

  it("relyingParty.allowCrossOrigin admits an iframe ceremony from a listed top origin only", async () => {
    const { browser, authenticator, recorder } = await signedUp(allowPortal)
    const listed = await browser.authenticate(authenticator, { crossOrigin: true, topOrigin: portal })
    expect(location(listed)).toBe(RP_ORIGIN)
    expect(browser.cookies[SESSION_COOKIE]).toBeDefined()

    const other = new Client(browser.config)
    const unlisted = await other.authenticate(authenticator, { crossOrigin: true, topOrigin: "https://other.example" })
    expect(location(unlisted)).toBe(verificationError)
    const noTop = await other.authenticate(authenticator, { crossOrigin: true })
    expect(location(noTop)).toBe(verificationError)
    expect(recorder.sessionsCreated).toBe(2)
  })

  it("a same-origin ceremony (crossOrigin false) still signs in", async () => {
    const { browser, authenticator } = await signedUp()
    expect(location(await browser.authenticate(authenticator, { crossOrigin: false }))).toBe(RP_ORIGIN)
  })

  it("allowCrossOrigin takes origins only: a path is a construction error", async () => {
    const config = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      providers: [Passkey({ relyingParty: { origin: RP_ORIGIN, allowCrossOrigin: ["https://portal.example/app"] } })],
    }
    const answer = await Auth(new Request(`${RP_ORIGIN}/auth/providers`), config)
    expect(answer.status).toBe(500)
  })
})

describe("a phishing relay's own Origin header is never an expected origin", () => {
  const relay = { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" }

  it("an assertion made for https://evil.example, posted with that Origin, is refused: no session", async () => {
    const { browser, authenticator, recorder, config } = await signedUp()
    const response = await browser.authenticate(authenticator, { origin: "https://evil.example" }, "", relay)
    expect(location(response)).toBe(verificationError)
    expect(browser.cookies[SESSION_COOKIE]).toBeUndefined()
    expect(recorder.sessionsCreated).toBe(1)
    expect(config.logger.errors.map((e) => (e as { type?: string }).type)).toContain("WebAuthnVerificationError")
  })

  it("an attestation made for https://evil.example, posted with that Origin, is refused: nothing stored", async () => {
    const adapter = MemoryAdapter()
    const { config, recorder } = passkeyConfig(adapter)
    const authenticator = newAuthenticator({ origin: "https://evil.example" })
    const client = new Client(config)
    const response = await client.register(authenticator, `email=${encodeURIComponent(email)}`, {}, relay)
    expect(location(response)).toBe(verificationError)
    expect(client.cookies[SESSION_COOKIE]).toBeUndefined()
    await expect(adapter.getUserByEmail(email)).resolves.toBeNull()
    await expect(adapter.getAuthenticator!(Buffer.from(authenticator.credentialId).toString("base64"))).resolves.toBe(
      null,
    )
    expect(recorder.sessionsCreated).toBe(0)
  })
})

/** The shape of a JSON value: its keys, nesting and value types, not the values. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shapeOf(item)]))
  }
  return value === null ? "null" : typeof value
}

/** The adapter with every call recorded by method name, in order. */
function recorded(adapter: ReturnType<typeof MemoryAdapter>, calls: string[]): ReturnType<typeof MemoryAdapter> {
  return new Proxy(adapter, {
    get(target, name, receiver) {
      const member = Reflect.get(target, name, receiver) as unknown
      if (typeof member !== "function") return member
      return (...args: unknown[]) => {
        calls.push(String(name))
        return (member as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
}

describe("B.2 rule 8: registration options for a known address, asked by nobody signed in", () => {
  async function setup(factory?: typeof Passkey, providerId = "passkey") {
    const calls: string[] = []
    const adapter = MemoryAdapter()
    const { config } = passkeyConfig(recorded(adapter, calls), factory ? { factory } : {})
    // Ada has an account and a passkey.
    const registered = await new Client(config, providerId).register(
      newAuthenticator(),
      `email=${encodeURIComponent(email)}`,
    )
    if (location(registered) !== RP_ORIGIN) throw new Error("sign-up failed")
    return { adapter, config, calls }
  }

  async function ask(
    config: ReturnType<typeof passkeyConfig>["config"],
    calls: string[],
    address: string,
    providerId = "passkey",
  ) {
    calls.length = 0
    const client = new Client(config, providerId)
    const answer = await client.options(`action=register&email=${encodeURIComponent(address)}`)
    return { client, answer, calls: [...calls], cookie: answer.response.headers.getSetCookie() }
  }

  it("answers exactly like an unknown address: same status, shape, cookie and adapter work", async () => {
    const { config, calls } = await setup()
    const known = await ask(config, calls, email)
    const unknown = await ask(config, calls, "nobody@example.com")

    expect(known.answer.status).toBe(200)
    expect(unknown.answer.status).toBe(200)
    expect(shapeOf(known.answer.body)).toEqual(shapeOf(unknown.answer.body))
    const options = known.answer.body.options as unknown as {
      excludeCredentials: unknown
      user: Record<string, string>
    }
    expect(known.answer.body.action).toBe("register")
    expect(options.excludeCredentials).toEqual([])
    expect(options.user.name).toBe(email)
    expect(options.user.displayName).toBe(email)
    // The same adapter calls, in the same order (the lookup of the address, the challenge record).
    expect(known.calls).toEqual(unknown.calls)
    expect(known.calls.length).toBeGreaterThan(0)
    const attributes = (lines: string[]) => lines.map((line) => line.replace(/=[^;]*/, "=<value>"))
    expect(attributes(known.cookie)).toEqual(attributes(unknown.cookie))
  })

  it("the ceremony then fails at the callback: no passkey is added to the existing account", async () => {
    const { adapter, config } = await setup()
    const user = (await adapter.getUserByEmail(email))!
    const before = await adapter.listAuthenticatorsByUserId(user.id)
    const client = new Client(config)
    const response = await client.register(newAuthenticator(), `email=${encodeURIComponent(email)}`)
    expect(location(response)).toBe(`${RP_ORIGIN}/auth/signin?error=AccountNotLinked`)
    expect(client.cookies[SESSION_COOKIE]).toBeUndefined()
    expect(await adapter.listAuthenticatorsByUserId(user.id)).toEqual(before)
  })

  it("the webauthn provider keeps the Auth.js answer (400) for a known address", async () => {
    const { default: WebAuthn } = await import("../../lib/providers/webauthn")
    const { config, calls } = await setup(WebAuthn as unknown as typeof Passkey, "webauthn")
    const known = await ask(config, calls, email, "webauthn")
    expect(known.answer.status).toBe(400)
    expect(known.answer.body).toEqual({ error: "Invalid request" })
  })
})
