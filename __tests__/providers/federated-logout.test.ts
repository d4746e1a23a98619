// The catalogue's logout defaults (next-wave C.1 item 4, C.4): for each provider that supports RP-initiated logout,
// POST /signout of a session signed in through it redirects to that provider's end-session endpoint with the right
// parameters, and the way back (GET /signout-callback/:id) lands on the sign-out's callbackUrl. Discovery is answered by
// the provider's `customFetch`, standing in for the vendors' hosted metadata.
import { parseSetCookie } from "cookie"
import { Auth } from "../../lib/core"
import { resolveConfig } from "../../lib/core/kernel/config/resolve"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { InvalidConfig } from "../../lib/errors"
import { encode } from "../../lib/jwt"
import type { OAuthConfig } from "../../lib/providers/types"
import Auth0 from "../../lib/providers/auth0"
import Authentik from "../../lib/providers/authentik"
import Cognito from "../../lib/providers/cognito"
import GitHub from "../../lib/providers/github"
import Keycloak from "../../lib/providers/keycloak"
import MicrosoftEntraID from "../../lib/providers/microsoft-entra-id"
import Okta from "../../lib/providers/okta"
import Zitadel from "../../lib/providers/zitadel"
import { customFetch } from "../../lib/symbols"
import { testLogger } from "../core/helpers"

const ORIGIN = "https://app.example"
const SECRET = "federated-logout-secret-0123456789abcdef"
const COOKIE = "__Secure-authjs.session-token"
const CLIENT_ID = "client-id-0123"
const ID_TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl"

type Factory = (options: Record<string | symbol, unknown>) => OAuthConfig

interface Case {
  factory: Factory
  id: string
  /** The issuer as the vendor names it (given in the options unless `defaultIssuer`). */
  issuer: string
  defaultIssuer?: true
  /** The end-session endpoint the vendor's discovery document names. */
  endSession: string
}

/** Providers whose end-session endpoint is standard and comes from discovery. */
const standard: Case[] = [
  {
    factory: Keycloak as Factory,
    id: "keycloak",
    issuer: "https://kc.example/realms/demo",
    endSession: "https://kc.example/realms/demo/protocol/openid-connect/logout",
  },
  {
    factory: Okta as Factory,
    id: "okta",
    issuer: "https://dev-1.okta.example/oauth2/default",
    endSession: "https://dev-1.okta.example/oauth2/default/v1/logout",
  },
  // Auth0's OIDC endpoint, advertised when the tenant turns on "RP-Initiated Logout End Session Endpoint Discovery".
  {
    factory: Auth0 as Factory,
    id: "auth0",
    issuer: "https://tenant.eu.auth0.example/",
    endSession: "https://tenant.eu.auth0.example/oidc/logout",
  },
  {
    factory: Zitadel as Factory,
    id: "zitadel",
    issuer: "https://my-instance.zitadel.example",
    endSession: "https://my-instance.zitadel.example/oidc/v1/end_session",
  },
  {
    factory: Authentik as Factory,
    id: "authentik",
    issuer: "https://sso.example/application/o/app/",
    endSession: "https://sso.example/application/o/app/end-session/",
  },
  {
    factory: MicrosoftEntraID as Factory,
    id: "microsoft-entra-id",
    // One tenant: the multi-tenant issuers have their own tests (entra-multi-tenant.test.ts).
    issuer: "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0",
    endSession: "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/oauth2/v2.0/logout",
  },
]

/** A `fetch` answering only `issuer`'s discovery document (with `endSession` when given); records every request. */
function discovery(issuer: string, endSession: string | undefined, calls: string[]): typeof fetch {
  return async (input) => {
    const url = String(input instanceof Request ? input.url : input)
    calls.push(url)
    if (url !== `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`) {
      return new Response("unexpected request", { status: 599 })
    }
    const origin = new URL(issuer).origin
    return Response.json({
      issuer,
      authorization_endpoint: `${origin}/authorize-x`,
      token_endpoint: `${origin}/token-x`,
      jwks_uri: `${origin}/jwks-x`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      ...(endSession ? { end_session_endpoint: endSession } : {}),
    })
  }
}

/** A session cookie of a user who signed in through `provider` (the OIDC record sign-in keeps in the JWT). */
async function sessionSignedInThrough(provider: string, issuer: string): Promise<string> {
  const at = Math.floor(Date.now() / 1000) - 60
  return encode({
    token: {
      sub: "user-1",
      name: "Ada",
      __gh: { idp: { p: provider, iss: issuer, sub: "idp-user-1", sid: "op-session-1", at, idt: ID_TOKEN } },
    },
    secret: SECRET,
    salt: COOKIE,
  })
}

async function signOut(config: AuthConfig, session: string): Promise<Response> {
  const csrf = await Auth(new Request(`${ORIGIN}/auth/csrf`), config)
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const cookies = csrf.headers.getSetCookie().map((line) => parseSetCookie(line))
  const cookie = [...cookies.map((c) => `${c.name}=${c.value}`), `${COOKIE}=${session}`].join("; ")
  return Auth(
    new Request(`${ORIGIN}/auth/signout`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ csrfToken, callbackUrl: `${ORIGIN}/bye` }),
    }),
    config,
  )
}

function expectSessionCleared(response: Response): void {
  const cleared = response.headers
    .getSetCookie()
    .map((line) => parseSetCookie(line))
    .filter((c) => c.name === COOKIE)
  expect(cleared).toEqual([expect.objectContaining({ value: "", maxAge: 0 })])
}

function setup(provider: AuthConfig["providers"][number]) {
  const logger = testLogger()
  const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [provider], logger }
  return { config, logger }
}

describe.each(standard)("$id: the end-session endpoint comes from discovery", (c) => {
  function provider(calls: string[], logout: Record<string, unknown> = { rpInitiated: true }): OAuthConfig {
    return c.factory({
      clientId: CLIENT_ID,
      clientSecret: "client-secret-0123456789",
      ...(c.defaultIssuer ? {} : { issuer: c.issuer }),
      logout,
      [customFetch]: discovery(c.issuer, c.endSession, calls),
    })
  }

  test("sign-out redirects there with client_id, post_logout_redirect_uri, a sealed state and id_token_hint", async () => {
    const calls: string[] = []
    const { config, logger } = setup(provider(calls))
    const response = await signOut(config, await sessionSignedInThrough(c.id, c.issuer))
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get("location") as string)
    expect(`${location.origin}${location.pathname}`).toBe(c.endSession)
    const query = Object.fromEntries(location.searchParams)
    expect(Object.keys(query).sort()).toEqual(["client_id", "id_token_hint", "post_logout_redirect_uri", "state"])
    expect(query.client_id).toBe(CLIENT_ID)
    expect(query.post_logout_redirect_uri).toBe(`${ORIGIN}/auth/signout-callback/${c.id}`)
    expect(query.id_token_hint).toBe(ID_TOKEN)
    // A compact JWE: the destination never shows in the URL, nor in any part of the state once decoded. (Searching the
    // state's text for "bye" failed about once in 90 runs: a random ciphertext holds those three letters by chance.)
    expect(query.state!.split(".")).toHaveLength(5)
    const withoutState = new URL(location)
    withoutState.searchParams.delete("state")
    expect(withoutState.href).not.toContain("bye")
    for (const part of query.state!.split(".")) {
      expect(Buffer.from(part, "base64url").toString("latin1")).not.toContain(`${ORIGIN}/bye`)
    }
    expectSessionCleared(response)
    expect(calls).toEqual([`${c.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`])
    expect(logger.errors).toEqual([])
    expect(logger.warnings).toEqual([])

    // The provider sends the browser back with the state: it lands on the sign-out's callbackUrl.
    const back = await Auth(
      new Request(`${ORIGIN}/auth/signout-callback/${c.id}?state=${encodeURIComponent(query.state!)}`),
      config,
    )
    expect(back.status).toBe(302)
    expect(back.headers.get("location")).toBe(`${ORIGIN}/bye`)
  })

  test("logout is opt-in: without rpInitiated, sign-out stays local and asks nothing of the provider", async () => {
    const calls: string[] = []
    const { config, logger } = setup(provider(calls, {}))
    const response = await signOut(config, await sessionSignedInThrough(c.id, c.issuer))
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/bye`)
    expectSessionCleared(response)
    expect(calls).toEqual([])
    expect(logger.warnings).toEqual([])
  })
})

describe("cognito: its own /logout on the user pool's domain", () => {
  const issuer = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool"
  const domain = "https://myapp.auth.eu-west-1.amazoncognito.example"

  test("with `domain`: GET <domain>/logout?client_id&logout_uri&state, no id_token_hint, no discovery", async () => {
    const calls: string[] = []
    const provider = (Cognito as Factory)({
      issuer,
      domain: `${domain}/`,
      clientId: CLIENT_ID,
      clientSecret: "client-secret-0123456789",
      logout: { rpInitiated: true },
      [customFetch]: discovery(issuer, undefined, calls),
    })
    const { config, logger } = setup(provider)
    const response = await signOut(config, await sessionSignedInThrough("cognito", issuer))
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get("location") as string)
    expect(`${location.origin}${location.pathname}`).toBe(`${domain}/logout`)
    const query = Object.fromEntries(location.searchParams)
    expect(Object.keys(query).sort()).toEqual(["client_id", "logout_uri", "state"])
    expect(query.client_id).toBe(CLIENT_ID)
    expect(query.logout_uri).toBe(`${ORIGIN}/auth/signout-callback/cognito`)
    expectSessionCleared(response)
    expect(calls).toEqual([])
    expect(logger.warnings).toEqual([])
  })

  test("without `domain`: Cognito's discovery names no end-session endpoint, so sign-out is local and warns once", async () => {
    const calls: string[] = []
    const provider = (Cognito as Factory)({
      issuer,
      clientId: CLIENT_ID,
      clientSecret: "client-secret-0123456789",
      logout: { rpInitiated: true },
      [customFetch]: discovery(issuer, undefined, calls),
    })
    const { config, logger } = setup(provider)
    for (let i = 0; i < 2; i++) {
      const response = await signOut(config, await sessionSignedInThrough("cognito", issuer))
      expect(response.headers.get("location")).toBe(`${ORIGIN}/bye`)
      expectSessionCleared(response)
    }
    expect(logger.warnings).toEqual(["rp-initiated-logout-unavailable"])
  })
})

describe("providers without RP-initiated logout, and bad settings", () => {
  test("github ignores rpInitiated: local sign-out and one rp-initiated-logout-unavailable warning", async () => {
    const { config, logger } = setup(
      GitHub({ clientId: CLIENT_ID, clientSecret: "client-secret-0123456789", logout: { rpInitiated: true } }),
    )
    const response = await signOut(config, await sessionSignedInThrough("github", "https://github.com"))
    expect(response.headers.get("location")).toBe(`${ORIGIN}/bye`)
    expectSessionCleared(response)
    expect(logger.warnings).toEqual(["rp-initiated-logout-unavailable"])
  })

  test.each([
    ["not a URL", "::not a url::", "Invalid endpoint URL"],
    ["plain http off loopback", "http://kc.example/logout", "over plain http"],
  ])("an endSessionEndpoint that is %s fails at construction", (_label, endSessionEndpoint, message) => {
    const { config } = setup(
      Keycloak({
        issuer: "https://kc.example/realms/demo",
        clientId: CLIENT_ID,
        clientSecret: "client-secret-0123456789",
        logout: { rpInitiated: true, endSessionEndpoint },
      }),
    )
    expect(() => resolveConfig(config)).toThrow(InvalidConfig)
    expect(() => resolveConfig(config)).toThrow(message)
  })
})
