// WebAuthn configuration at construction: the relying party from config or AUTH_URL (never from request headers,
// production refuses to start without one), the Auth.js option names, the ignored experimental flag.
import { createHash } from "node:crypto"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { resolveConfig } from "../../../lib/core/kernel/config/resolve"
import type { ResolvedWebAuthnProvider } from "../../../lib/webauthn/provider"
import { InvalidConfig, MissingAdapter, MissingAdapterMethods } from "../../../lib/errors"
import Passkey from "../../../lib/providers/passkey"
import WebAuthn from "../../../lib/providers/webauthn"
import { SECRET, testLogger } from "../helpers"
import { Client, newAuthenticator, passkeyConfig, RP_ORIGIN } from "./harness"

const base = { secret: SECRET, trustHost: true }

function rpOf(config: Parameters<typeof resolveConfig>[0], env: Record<string, string> = {}) {
  return (resolveConfig(config, { env }).providers[0] as ResolvedWebAuthnProvider).rp
}

describe("WebAuthn configuration", () => {
  it("the relying party comes from relyingParty (alias) or relayingParty (Auth.js), every origin verifies", () => {
    const adapter = MemoryAdapter()
    expect(
      rpOf({
        ...base,
        adapter,
        providers: [
          Passkey({
            relyingParty: {
              id: "app.example",
              name: "App",
              origin: ["https://app.example", "https://www.app.example"],
            },
          }),
        ],
      }),
    ).toEqual({ ids: ["app.example"], name: "App", origins: ["https://app.example", "https://www.app.example"] })
    expect(
      rpOf({ ...base, adapter, providers: [WebAuthn({ relayingParty: { origin: "https://auth.example" } })] }),
    ).toEqual({ ids: ["auth.example"], name: "auth.example", origins: ["https://auth.example"] })
  })

  it("without relyingParty, AUTH_URL's origin and host are the relying party (the name is host:port, as in Auth.js)", () => {
    expect(
      rpOf(
        { ...base, adapter: MemoryAdapter(), providers: [Passkey()] },
        { AUTH_URL: "https://app.example:8443/auth" },
      ),
    ).toEqual({ ids: ["app.example"], name: "app.example:8443", origins: ["https://app.example:8443"] })
  })

  it("a relyingParty.name given as a list is its first entry, as in Auth.js", () => {
    const name = ["Primary", "Other"] as unknown as string
    expect(
      rpOf({
        ...base,
        adapter: MemoryAdapter(),
        providers: [Passkey({ relyingParty: { id: "app.example", name, origin: "https://app.example" } })],
      }),
    ).toEqual({ ids: ["app.example"], name: "Primary", origins: ["https://app.example"] })
  })

  it("in production, neither relyingParty nor AUTH_URL is a construction error", () => {
    const build = () =>
      resolveConfig({ ...base, adapter: MemoryAdapter(), providers: [Passkey()] }, { env: { NODE_ENV: "production" } })
    expect(build).toThrow(InvalidConfig)
    expect(build).toThrow("WebAuthn needs AUTH_URL or relyingParty.origin in production")
  })

  it("an origin with a path is refused", () => {
    expect(() =>
      resolveConfig(
        {
          ...base,
          adapter: MemoryAdapter(),
          providers: [Passkey({ relyingParty: { origin: "https://app.example/x" } })],
        },
        { env: {} },
      ),
    ).toThrow(InvalidConfig)
  })

  it("needs an adapter with the authenticator methods", () => {
    expect(() => resolveConfig({ ...base, providers: [Passkey()] }, { env: {} })).toThrow(MissingAdapter)
    const { getAuthenticator: _g, ...noAuthenticators } = MemoryAdapter()
    expect(() => resolveConfig({ ...base, adapter: noAuthenticators, providers: [Passkey()] }, { env: {} })).toThrow(
      MissingAdapterMethods,
    )
  })

  it("experimental.enableWebAuthn is accepted and ignored with one notice; without it WebAuthn works", () => {
    const logger = testLogger()
    resolveConfig(
      { ...base, adapter: MemoryAdapter(), providers: [Passkey()], experimental: { enableWebAuthn: true }, logger },
      { env: {} },
    )
    expect(logger.warnings).toEqual(["experimental-webauthn"])
    const quiet = testLogger()
    resolveConfig({ ...base, adapter: MemoryAdapter(), providers: [Passkey()], logger: quiet }, { env: {} })
    expect(quiet.warnings).toEqual([])
  })
})

describe("the webauthn provider (Auth.js behaviour)", () => {
  it("lists the credentials of the user an email names, and does not require UV", async () => {
    const adapter = MemoryAdapter()
    const { config } = passkeyConfig(adapter, { factory: WebAuthn })
    const authenticator = newAuthenticator({ uv: false })
    const client = new Client(config, "webauthn")
    const registered = await client.register(authenticator, "email=wa%40example.com")
    expect(registered.headers.get("location")).toBe(RP_ORIGIN)

    const answer = await new Client(config, "webauthn").options("email=wa%40example.com")
    expect(answer.body.action).toBe("authenticate")
    const options = answer.body.options as unknown as {
      allowCredentials: Array<{ id: string }>
      userVerification: string
    }
    expect(options.allowCredentials.map((c) => c.id)).toEqual([authenticator.id])
    expect(options.userVerification).toBe("preferred")

    const signedIn = await new Client(config, "webauthn").authenticate(authenticator)
    expect(signedIn.headers.get("location")).toBe(RP_ORIGIN)
  })

  it("by default a challenge's use is marked in the adapter's key-value store, so a replay finds the mark", async () => {
    const adapter = MemoryAdapter()
    const { config } = passkeyConfig(adapter)
    const client = new Client(config)
    const answer = await client.options("email=kv%40example.com")
    const challenge = (answer.body.options as { challenge: string }).challenge
    const key = `webauthn:used:register:${createHash("sha256").update(challenge).digest("hex")}`
    await expect(adapter.store.get([key])).resolves.toEqual([null])
    const registered = await client.callback("register", newAuthenticator().register(answer.body.options as never))
    expect(registered.headers.get("location")).toBe(RP_ORIGIN)
    expect((await adapter.store.get([key]))[0]).not.toBeNull()
    const replayed = await client.replay()
    expect(replayed.headers.get("location")).toBe(`${RP_ORIGIN}/auth/error?error=WebAuthnVerificationError`)
  })

  it("an Auth.js-style adapter without a store keeps challenge hashes as verification tokens", async () => {
    const { store: _s, ...withoutStore } = MemoryAdapter()
    const used: string[] = []
    const adapter = {
      ...withoutStore,
      useVerificationToken: async (params: { identifier: string; token: string }) => {
        used.push(params.identifier)
        return withoutStore.useVerificationToken(params)
      },
    }
    const { config } = passkeyConfig(adapter)
    const client = new Client(config)
    expect((await client.register(newAuthenticator(), "email=vt%40example.com")).headers.get("location")).toBe(
      RP_ORIGIN,
    )
    expect(used).toEqual(["webauthn:register"])
    expect((await client.replay()).headers.get("location")).toBe(
      `${RP_ORIGIN}/auth/error?error=WebAuthnVerificationError`,
    )
  })

  it("a custom challengeStore holds the single-use challenges", async () => {
    const keys = new Map<string, Date>()
    const challengeStore = {
      set: (key: string, expires: Date) => void keys.set(key, expires),
      consume: (key: string) => keys.delete(key),
    }
    const { config } = passkeyConfig(MemoryAdapter(), { provider: { challengeStore } })
    const client = new Client(config)
    await client.register(newAuthenticator(), "email=store%40example.com")
    expect(keys.size).toBe(0)
    await client.options("action=register")
    expect([...keys.keys()]).toEqual([expect.stringMatching(/^webauthn:register:[0-9a-f]{64}$/)])
  })
})
