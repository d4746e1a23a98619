// Passkeys through Auth() with the software authenticator (next-wave B.3 rows B1-B4, B7-B11, B13) on the memory
// adapter; replay and counters on the real databases are in __tests__/e2e/passkeys-databases.test.ts.
import { parseSetCookie } from "cookie"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import Credentials from "../../../lib/providers/credentials"
import { fakeDateOnly } from "../../fixtures/clock"
import { SoftwareAuthenticator } from "../../fixtures/webauthn/authenticator"
import { Client, newAuthenticator, passkeyConfig, RP_ORIGIN, SESSION_COOKIE } from "./harness"

const email = "new@example.com"

function location(response: Response): string {
  return response.headers.get("location") ?? ""
}

/** A new user registered with a passkey and signed in. */
async function signedUp(adapter = MemoryAdapter(), authenticator = newAuthenticator()) {
  const { config, recorder } = passkeyConfig(adapter)
  const client = new Client(config)
  const response = await client.register(authenticator, `email=${encodeURIComponent(email)}`)
  if (response.status !== 302 || location(response) !== RP_ORIGIN) {
    throw new Error(`sign-up failed: ${response.status} ${location(response)}`)
  }
  const user = await adapter.getUserByEmail(email)
  if (!user) throw new Error("no user")
  return { adapter, config, recorder, client, authenticator, user }
}

describe("passkey registration (B3)", () => {
  it("an unknown email registers: one user (email unverified), one webauthn account, one authenticator, a session", async () => {
    const adapter = MemoryAdapter()
    const { config, recorder } = passkeyConfig(adapter)
    const client = new Client(config)
    const authenticator = newAuthenticator()

    const options = await client.options(`email=${encodeURIComponent(email)}`)
    expect(options.status).toBe(200)
    expect(options.body.action).toBe("register")
    const response = await client.callback("register", authenticator.register(options.body.options as never))
    expect(response.status).toBe(302)
    expect(location(response)).toBe(RP_ORIGIN)
    expect(client.cookies[SESSION_COOKIE]).toBeTruthy()

    const user = await adapter.getUserByEmail(email)
    expect(user).toMatchObject({ email, emailVerified: null })
    const credentialID = authenticator.credentialId.toString("base64")
    expect(await adapter.getAccount(credentialID, "passkey")).toEqual({
      userId: user?.id,
      type: "webauthn",
      provider: "passkey",
      providerAccountId: credentialID,
    })
    const authenticators = await adapter.listAuthenticatorsByUserId(user?.id as string)
    expect(authenticators).toHaveLength(1)
    expect(authenticators[0]).toMatchObject({
      credentialID,
      providerAccountId: credentialID,
      counter: 0,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
      transports: "internal",
      name: "Passkey",
      aaguid: "00000000-0000-0000-0000-000000000000",
    })
    expect(authenticators[0]?.createdAt).toBeInstanceOf(Date)
    expect(Buffer.from(authenticators[0]?.credentialPublicKey as string, "base64")).toEqual(authenticator.coseKey())
    expect(recorder).toMatchObject({ createUser: 1, signIn: 1, sessionsCreated: 1 })
    expect((await client.session())?.user?.email).toBe(email)
  })

  it("the user handle is stable: the same user always gets the same one, another user another", async () => {
    const { client, user, config } = await signedUp()
    const first = await client.options("action=register")
    const second = await client.options("action=register")
    const handle = (first.body.options as unknown as { user: { id: string } }).user.id
    expect((second.body.options as unknown as { user: { id: string } }).user.id).toBe(handle)
    expect(Buffer.from(handle, "base64url")).toHaveLength(32)
    expect(handle).not.toBe(Buffer.from(user.id).toString("base64url"))
    const other = await new Client(config).options("email=other%40example.com")
    expect((other.body.options as unknown as { user: { id: string } }).user.id).not.toBe(handle)
  })

  it("a synced passkey is stored as multiDevice and backed up", async () => {
    const { adapter, user } = await signedUp(MemoryAdapter(), newAuthenticator({ backedUp: true }))
    expect((await adapter.listAuthenticatorsByUserId(user.id))[0]).toMatchObject({
      credentialDeviceType: "multiDevice",
      credentialBackedUp: true,
    })
  })

  it("allowSignUp: false refuses options for an unknown email and creates nothing", async () => {
    const adapter = MemoryAdapter()
    const { config } = passkeyConfig(adapter, { provider: { allowSignUp: false } })
    const answer = await new Client(config).options(`action=register&email=${encodeURIComponent(email)}`)
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({ error: "Invalid request" })
    await expect(adapter.getUserByEmail(email)).resolves.toBeNull()
  })

  it("a registration that fails to store its authenticator leaves no user and no account", async () => {
    const adapter = MemoryAdapter()
    const failing = { ...adapter, createAuthenticator: async () => Promise.reject(new Error("disk full")) }
    const { config, recorder } = passkeyConfig(failing)
    const client = new Client(config)
    const response = await client.register(newAuthenticator(), `email=${encodeURIComponent(email)}`)
    expect(response.status).toBe(302)
    expect(location(response)).toBe(`${RP_ORIGIN}/auth/error?error=Configuration`)
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false)
    await expect(adapter.getUserByEmail(email)).resolves.toBeNull()
    expect(recorder).toMatchObject({ createUser: 0, signIn: 0, sessionsCreated: 0 })
  })

  it("an email that already has an account cannot be taken over by registering a passkey", async () => {
    const adapter = MemoryAdapter()
    await adapter.createUser({ id: "victim", email, emailVerified: new Date() })
    const { config } = passkeyConfig(adapter)
    const client = new Client(config)
    // The options do not tell a known address from an unknown one (B.2 rule 8); the registration itself is refused.
    const forced = await client.register(newAuthenticator(), `email=${encodeURIComponent(email)}`)
    expect(location(forced)).toBe(`${RP_ORIGIN}/auth/signin?error=AccountNotLinked`)
    expect(client.cookies[SESSION_COOKIE]).toBeUndefined()
    expect(await adapter.listAuthenticatorsByUserId("victim")).toEqual([])
  })
})

describe("passkey options (B1, B2)", () => {
  it("B1: a signed-in user with 2 passkeys gets register options excluding both, UV and resident key required", async () => {
    const { client, adapter, user } = await signedUp()
    const second = newAuthenticator()
    const added = await client.register(second)
    expect(added.status).toBe(302)
    expect(await adapter.listAuthenticatorsByUserId(user.id)).toHaveLength(2)

    const answer = await client.options("action=register")
    expect(answer.status).toBe(200)
    expect(answer.body.action).toBe("register")
    const options = answer.body.options as unknown as {
      excludeCredentials: Array<{ id: string }>
      authenticatorSelection: Record<string, unknown>
      timeout: number
      challenge: string
      rp: { id: string; name: string }
      attestation: string
    }
    expect(options.excludeCredentials.map((c) => c.id).sort()).toEqual(
      (await adapter.listAuthenticatorsByUserId(user.id))
        .map((a) => Buffer.from(a.credentialID, "base64").toString("base64url"))
        .sort(),
    )
    expect(options.excludeCredentials.every((c) => /^[A-Za-z0-9_-]+$/.test(c.id))).toBe(true)
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" })
    expect(options.timeout).toBe(300000)
    expect(options.challenge).toHaveLength(43)
    expect(options.rp).toEqual({ id: "localhost", name: "Gatehouse test" })
    expect(options.attestation).toBe("none")
    const cookie = answer.response.headers.getSetCookie().find((c) => c.startsWith("authjs.challenge="))
    expect(cookie).toBeDefined()
    expect(cookie).toMatch(/; Max-Age=900;/)
    expect(cookie).toMatch(/; HttpOnly/)
    expect(cookie).toMatch(/; SameSite=Lax/)
    expect(cookie).not.toMatch(/Secure/)
    expect(parseSetCookie(cookie as string).path).toBe("/")
  })

  it("B2: an unknown action answers 400 Invalid action", async () => {
    const { config } = passkeyConfig(MemoryAdapter())
    const answer = await new Client(config).options("action=bogus")
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({ error: "Invalid action" })
    expect(answer.response.headers.getSetCookie().some((c) => c.startsWith("authjs.challenge="))).toBe(false)
  })

  it("signed in without an action answers 400 Invalid request; signed out without anything authenticates", async () => {
    const { client, config } = await signedUp()
    expect((await client.options()).body).toEqual({ error: "Invalid request" })
    const anonymous = await new Client(config).options()
    expect(anonymous.status).toBe(200)
    expect(anonymous.body.action).toBe("authenticate")
  })

  it("not signed in, passkey never lists credentials, even for an email that has some", async () => {
    const { config } = await signedUp()
    const answer = await new Client(config).options(`action=authenticate&email=${encodeURIComponent(email)}`)
    expect(answer.status).toBe(200)
    const options = answer.body.options as unknown as { allowCredentials: unknown[]; userVerification: string }
    expect(options.allowCredentials).toEqual([])
    expect(options.userVerification).toBe("required")
  })

  it("a provider that is not webauthn answers the Configuration error", async () => {
    const { config } = passkeyConfig(MemoryAdapter())
    const response = await new Client(config, "credentials").request("/auth/webauthn-options/nope")
    expect(response.status).toBe(302)
    expect(location(response)).toBe(`${RP_ORIGIN}/auth/error?error=Configuration`)
  })
})

describe("passkey sign-in (B4, B13)", () => {
  it("B4: the registered credential signs in; counter stays 0 and lastUsedAt is set", async () => {
    const { adapter, config, recorder, authenticator, user } = await signedUp()
    const client = new Client(config)
    const response = await client.authenticate(authenticator)
    expect(response.status).toBe(302)
    expect(location(response)).toBe(RP_ORIGIN)
    expect(client.cookies[SESSION_COOKIE]).toBeTruthy()
    expect((await client.session())?.user?.email).toBe(email)
    const stored = await adapter.getAuthenticator(authenticator.credentialId.toString("base64"))
    expect(stored?.counter).toBe(0)
    expect(stored?.lastUsedAt).toBeInstanceOf(Date)
    expect(stored?.userId).toBe(user.id)
    expect(recorder.signIn).toBe(2)
  })

  it("the challenge cookie is cleared by the callback", async () => {
    const { config, authenticator } = await signedUp()
    const client = new Client(config)
    const response = await client.authenticate(authenticator)
    const cleared = response.headers.getSetCookie().find((c) => c.startsWith("authjs.challenge="))
    expect(cleared).toMatch(/^authjs\.challenge=; Max-Age=0/)
  })

  it("callbackUrl is honoured; a signIn callback returning a URL redirects there without a session", async () => {
    const { adapter, authenticator } = await signedUp()
    const { config } = passkeyConfig(adapter, { config: { callbacks: { signIn: () => "/blocked" } } })
    const client = new Client(config)
    const answer = await client.options("action=authenticate")
    const response = await client.callback("authenticate", authenticator.authenticate(answer.body.options as never), {
      body: { callbackUrl: `${RP_ORIGIN}/dashboard` },
    })
    expect(location(response)).toBe(`${RP_ORIGIN}/blocked`)
    expect(client.cookies[SESSION_COOKIE]).toBeUndefined()
  })

  it("B13: a row written by an Auth.js adapter (standard base64 id with +, / and =) signs in", async () => {
    const adapter = MemoryAdapter()
    const credentialId = Buffer.from([0xfb, 0xef, 0xff, 0x01, 0x02])
    const authenticator = new SoftwareAuthenticator({ origin: RP_ORIGIN, rpId: "localhost" }, credentialId)
    const credentialID = credentialId.toString("base64")
    expect(credentialID).toBe("++//AQI=")
    const user = await adapter.createUser({ id: "authjs-user", email: "old@example.com", emailVerified: null })
    await adapter.linkAccount({
      userId: user.id,
      type: "webauthn",
      provider: "passkey",
      providerAccountId: credentialID,
    })
    await adapter.createAuthenticator({
      userId: user.id,
      providerAccountId: credentialID,
      credentialID,
      credentialPublicKey: authenticator.coseKey().toString("base64"),
      counter: 0,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
      transports: "internal",
    })
    const { config } = passkeyConfig(adapter)
    const client = new Client(config)
    const response = await client.authenticate(authenticator)
    expect(location(response)).toBe(RP_ORIGIN)
    expect((await client.session())?.user?.email).toBe("old@example.com")
  })

  it("a row stored with a base64url id (another tool) signs in too", async () => {
    const adapter = MemoryAdapter()
    const authenticator = newAuthenticator()
    const user = await adapter.createUser({ id: "url-user", email: "url@example.com", emailVerified: null })
    await adapter.linkAccount({
      userId: user.id,
      type: "webauthn",
      provider: "passkey",
      providerAccountId: authenticator.id,
    })
    await adapter.createAuthenticator({
      userId: user.id,
      providerAccountId: authenticator.id,
      credentialID: authenticator.id,
      credentialPublicKey: authenticator.coseKey().toString("base64"),
      counter: 0,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
    })
    const { config } = passkeyConfig(adapter)
    const client = new Client(config)
    expect(location(await client.authenticate(authenticator))).toBe(RP_ORIGIN)
    expect((await client.session())?.user?.email).toBe("url@example.com")
  })
})

describe("passkey rejections (B7-B11)", () => {
  const verificationError = `${RP_ORIGIN}/auth/error?error=WebAuthnVerificationError`

  it.each([
    ["a foreign origin in clientData", { origin: "https://evil.example" }],
    ["a wrong rpIdHash", { rpId: "evil.example" }],
    ["the UV flag cleared", { uv: false }],
    ["the UP flag cleared", { up: false }],
  ])("B7: an assertion with %s is rejected and issues no session", async (_name, overrides) => {
    const { config, recorder, authenticator } = await signedUp()
    const client = new Client(config)
    const response = await client.authenticate(authenticator, overrides)
    expect(response.status).toBe(302)
    expect(location(response)).toBe(verificationError)
    expect(client.cookies[SESSION_COOKIE]).toBeUndefined()
    expect(recorder.sessionsCreated).toBe(1)
  })

  it("B7: a registration without UV is rejected by passkey and stores nothing", async () => {
    const adapter = MemoryAdapter()
    const { config, recorder } = passkeyConfig(adapter)
    const response = await new Client(config).register(newAuthenticator(), `email=${encodeURIComponent(email)}`, {
      uv: false,
    })
    expect(location(response)).toBe(verificationError)
    await expect(adapter.getUserByEmail(email)).resolves.toBeNull()
    expect(recorder.sessionsCreated).toBe(0)
  })

  it("B8: a missing challenge cookie answers Configuration (InvalidCheck)", async () => {
    const { config, recorder, authenticator } = await signedUp()
    const client = new Client(config)
    const answer = await client.options("action=authenticate")
    delete client.cookies["authjs.challenge"]
    const response = await client.callback("authenticate", authenticator.authenticate(answer.body.options as never))
    expect(location(response)).toBe(`${RP_ORIGIN}/auth/error?error=Configuration`)
    expect(config.logger.errors.map((e) => (e as { type?: string }).type)).toContain("InvalidCheck")
    expect(recorder.sessionsCreated).toBe(1)
  })

  it("B8: a tampered challenge cookie answers Configuration", async () => {
    const { config, recorder, authenticator } = await signedUp()
    const client = new Client(config)
    const answer = await client.options("action=authenticate")
    const sealed = client.cookies["authjs.challenge"] as string
    client.cookies["authjs.challenge"] = `${sealed.slice(0, -4)}AAAA`
    const response = await client.callback("authenticate", authenticator.authenticate(answer.body.options as never))
    expect(location(response)).toBe(`${RP_ORIGIN}/auth/error?error=Configuration`)
    expect(recorder.sessionsCreated).toBe(1)
  })

  it("B8: a challenge cookie 901 s old answers Configuration", async () => {
    const { config, recorder, authenticator } = await signedUp()
    const start = Date.now()
    fakeDateOnly(start)
    try {
      const client = new Client(config)
      const answer = await client.options("action=authenticate")
      jest.setSystemTime(start + 901_000)
      const response = await client.callback("authenticate", authenticator.authenticate(answer.body.options as never))
      expect(location(response)).toBe(`${RP_ORIGIN}/auth/error?error=Configuration`)
      expect(recorder.sessionsCreated).toBe(1)
    } finally {
      jest.useRealTimers()
    }
  })

  it("B9: a registration challenge cookie cannot serve an authentication", async () => {
    const { config, recorder, authenticator, client } = await signedUp()
    const answer = await client.options("action=register")
    const response = await client.callback(
      "authenticate",
      authenticator.authenticate({ challenge: (answer.body.options as { challenge: string }).challenge }),
    )
    expect(location(response)).toBe(`${RP_ORIGIN}/auth/error?error=Configuration`)
    expect(config.logger.errors.some((e) => e.message.includes("webauthnChallenge"))).toBe(true)
    expect(recorder.sessionsCreated).toBe(1)
  })

  it("B10: an unknown credential id answers WebAuthnVerificationError (not Configuration)", async () => {
    const { config, recorder } = await signedUp()
    const stranger = newAuthenticator()
    const response = await new Client(config).authenticate(stranger)
    expect(location(response)).toBe(verificationError)
    expect(recorder.sessionsCreated).toBe(1)
  })

  it("B11: a callback without csrfToken is refused before anything is verified", async () => {
    const { config, recorder, authenticator } = await signedUp()
    const client = new Client(config)
    const answer = await client.options("action=authenticate")
    const assertion = authenticator.authenticate(answer.body.options as never)
    const refused = await client.callback("authenticate", assertion, { csrf: false })
    expect(refused.status).toBe(302)
    expect(location(refused)).toBe(`${RP_ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(recorder.sessionsCreated).toBe(1)
    // Nothing was consumed: the same challenge still verifies once a token is sent.
    client.cookies = { ...client.last?.cookies }
    const accepted = await client.callback("authenticate", assertion)
    expect(location(accepted)).toBe(RP_ORIGIN)
  })

  it("a bad action or oversized data is refused with no session", async () => {
    const { config, recorder } = await signedUp()
    const client = new Client(config)
    expect(location(await client.callback("bogus", {}))).toBe(`${RP_ORIGIN}/auth/error?error=Configuration`)
    await client.options("action=authenticate")
    expect(location(await client.callback("authenticate", "x".repeat(70_000)))).toBe(verificationError)
    expect(location(await client.callback("authenticate", "{not json"))).toBe(verificationError)
    expect(recorder.sessionsCreated).toBe(1)
  })

  it("B5 (memory): replaying the identical callback with the identical cookie is rejected", async () => {
    const { config, recorder, authenticator } = await signedUp()
    const client = new Client(config)
    expect(location(await client.authenticate(authenticator))).toBe(RP_ORIGIN)
    const replayed = await client.replay()
    expect(location(replayed)).toBe(verificationError)
    expect(replayed.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false)
    expect(recorder.sessionsCreated).toBe(2)
  })
})

describe("passkey registration for a signed-in user without an email", () => {
  it("registers under the user's name and signs them back in", async () => {
    const adapter = MemoryAdapter()
    const base = passkeyConfig(adapter).config
    const config = {
      ...base,
      providers: [
        ...base.providers,
        Credentials({ credentials: { name: { label: "Name" } }, authorize: () => ({ id: "no-mail", name: "Nomail" }) }),
      ],
    }
    const client = new Client(config)
    const csrfToken = await client.csrfToken()
    await client.request("/auth/callback/credentials", { body: { csrfToken, name: "x" } })
    expect((await client.session())?.user?.name).toBe("Nomail")
    const authenticator = newAuthenticator()
    const answer = await client.options("action=register")
    expect((answer.body.options as unknown as { user: { name: string } }).user.name).toBe("Nomail")
    const registered = await client.callback("register", authenticator.register(answer.body.options as never))
    expect(location(registered)).toBe(RP_ORIGIN)
    expect(await adapter.listAuthenticatorsByUserId("no-mail")).toHaveLength(1)
    const again = new Client(config)
    expect(location(await again.authenticate(authenticator))).toBe(RP_ORIGIN)
    expect((await again.session())?.user?.name).toBe("Nomail")
  })
})
