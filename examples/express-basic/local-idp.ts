/**
 * The demo's local identity provider: a real OpenID Provider (`oidc-provider`) in this process on 127.0.0.1, so the
 * demo shows a full OAuth 2 / OpenID Connect sign-in with no network, account or set-up. Any login and password work.
 * It supports RP-initiated logout: the demo's "Sign out and end the session at the provider too" sends the browser to
 * its end-session page, styled like the demo, which sends it back through `/auth/signout-callback/local-idp`.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import OIDC from "../../lib/providers/oidc"
import type { OAuthConfig } from "../../lib/providers/types"
import { escape } from "./pages"
import { pageCss } from "../../lib/core/kernel/pages/styles"

/** The provider id: the demo's callback is `/auth/callback/local-idp`. */
export const LOCAL_IDP_ID = "local-idp"
const CLIENT_ID = "gatehouse-demo"
// Not a real secret: the IdP lives only inside the demo process, on the loopback interface.
const CLIENT_SECRET = "gatehouse-demo-local-idp-client-secret"

/**
 * The port of the local identity provider: `DEMO_IDP_PORT`, default 3001.
 *
 * @example
 * ```ts
 * localIdpPort({ DEMO_IDP_PORT: "4001" }) // 4001
 * ```
 */
export function localIdpPort(env: NodeJS.ProcessEnv = process.env): number {
  const port = Number(env.DEMO_IDP_PORT ?? 3001)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError("DEMO_IDP_PORT must be a port number")
  return port
}

/**
 * The Gatehouse provider for the local identity provider (the generic `OIDC` factory; everything is discovered).
 *
 * @example
 * ```ts
 * ExpressAuth({ providers: [localIdpProvider("http://127.0.0.1:3001")] })
 * ```
 */
export function localIdpProvider(issuer = `http://127.0.0.1:${localIdpPort()}`): OAuthConfig {
  return OIDC({
    id: LOCAL_IDP_ID,
    // The sign-in page labels the button "Sign in with <name>".
    name: "the local identity provider",
    issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    checks: ["pkce", "state", "nonce"],
    // RP-initiated logout: a federated sign-out redirects to the IdP's end_session_endpoint (from discovery) with
    // id_token_hint, and comes back to /auth/signout-callback/local-idp.
    // Back-channel logout: when the IdP session ends (its own end-session page), the IdP posts a logout token to
    // /auth/backchannel-logout/local-idp, and the demo session that came from it ends too.
    logout: { rpInitiated: true, backchannel: true },
    // The IdP speaks plain http. Gatehouse accepts that without a flag only because it is on loopback (127.0.0.1):
    // nothing crosses a network. A plain-http server on another host needs `allowInsecureRequests: true`.
  })
}

export interface LocalIdpOptions {
  /** The port to listen on (0 picks a free one). Default: {@link localIdpPort}. */
  port?: number
  /** Origins the demo app is reached at; each gets `<origin>/auth/callback/local-idp` registered. */
  appOrigins: string[]
  /**
   * Where the IdP posts back-channel logout tokens (`<app origin>/auth/backchannel-logout/local-idp`), when the app
   * listens there. Without it the IdP ends only its own session.
   */
  backchannelLogoutUri?: string
}

export interface StartedLocalIdp {
  issuer: string
  port: number
  close(): Promise<void>
}

/** The IdP's own pages (end session, signed out) in the demo's look: the built-in pages' stylesheet, no script. */
function idpPage(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escape(title)}</title><style>${pageCss}.card form{margin:0}.button+.button{margin-top:.6rem}` +
    ".button.secondary{color:var(--gh-fg);background:var(--gh-card-bg);border-color:var(--gh-border)}</style>" +
    '</head><body class="__next-auth-theme-auto"><div class="page"><main class="card">' +
    `<p>Local identity provider</p><h1>${escape(title)}</h1>${body}</main></div></body></html>`
  )
}

interface PageContext {
  host: string
  body?: unknown
  oidc?: { client?: { clientId?: string } }
}

/**
 * Whether `url` points at this machine (127.0.0.0/8, `::1` or `localhost`): the one place the dev IdP may call without
 * oidc-provider's SSRF guard.
 *
 * @example
 * ```ts
 * isLoopbackUrl("http://127.0.0.1:3000/auth/backchannel-logout/local-idp") // true
 * isLoopbackUrl("http://10.0.0.5/") // false
 * ```
 */
export function isLoopbackUrl(url: URL | string): boolean {
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    return false
  }
  return host === "localhost" || host === "[::1]" || /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(host)
}

/** The claims of a user: whatever was typed as the login is the account. */
function claimsFor(login: string): Record<string, unknown> {
  const email = login.includes("@") ? login : `${login}@example.test`
  return { sub: login, email, email_verified: true, name: login.split("@")[0], preferred_username: login }
}

/**
 * Starts the local identity provider with one confidential client for the demo app.
 *
 * @example
 * ```ts
 * const idp = await startLocalIdp({ appOrigins: ["http://localhost:3000"] })
 * console.log(idp.issuer) // "http://127.0.0.1:3001"
 * ```
 */
export async function startLocalIdp(options: LocalIdpOptions): Promise<StartedLocalIdp> {
  // oidc-provider is ESM-only and large: loaded here, so importing the app (and its tests) does not load it.
  const { default: Provider } = await import("oidc-provider")
  const server: Server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? localIdpPort(), "127.0.0.1", () => {
      server.off("error", reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  const issuer = `http://127.0.0.1:${port}`

  // Fresh keys per process: nothing of the IdP outlives the demo.
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const signingKey = { ...privateKey.export({ format: "jwk" }), kid: "demo-rs256", use: "sig", alg: "RS256" }
  const provider = new Provider(issuer, {
    jwks: { keys: [signingKey] },
    // Short lifetimes, in seconds (explicit, so oidc-provider does not print a notice for each default it uses).
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: options.appOrigins.map(
          (origin) => `${origin.replace(/\/+$/, "")}/auth/callback/${LOCAL_IDP_ID}`,
        ),
        // Where the IdP may send the browser after its end-session page: the demo's sign-out callback.
        post_logout_redirect_uris: options.appOrigins.map(
          (origin) => `${origin.replace(/\/+$/, "")}/auth/signout-callback/${LOCAL_IDP_ID}`,
        ),
        ...(options.backchannelLogoutUri
          ? { backchannel_logout_uri: options.backchannelLogoutUri, backchannel_logout_session_required: true }
          : {}),
        response_types: ["code"],
        grant_types: ["authorization_code"],
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username"] },
    // The built-in login and consent pages: fine for a demo, which is what oidc-provider warns about at start.
    features: {
      devInteractions: { enabled: true },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        // `form` is oidc-provider's hidden form (its xsrf token); the buttons submit it.
        logoutSource: (ctx: PageContext, form: string) => {
          ctx.body = idpPage(
            "End your session here?",
            `<p>You are signed in at the local identity provider (${escape(ctx.host)}). Signing out here means the ` +
              "next sign-in with it asks for your login again.</p>" +
              form +
              '<button class="button" autofocus type="submit" form="op.logoutForm" value="yes" name="logout">' +
              "Yes, sign me out</button>" +
              '<button class="button secondary" type="submit" form="op.logoutForm">No, stay signed in here</button>',
          )
        },
        postLogoutSuccessSource: (ctx: PageContext) => {
          const back = options.appOrigins[0]
          ctx.body = idpPage(
            "Signed out",
            "<p>You are signed out of the local identity provider.</p>" +
              (back ? `<a class="button" href="${escape(back)}/">Back to the demo</a>` : ""),
          )
        },
      },
    },
    // oidc-provider fetches through a guard that refuses loopback and private addresses (against SSRF). The only
    // server this IdP calls is the demo, on loopback: its back-channel logout tokens go to 127.0.0.1. So requests to a
    // loopback host go without the guard, and any other host keeps it. A real IdP keeps its guard everywhere.
    fetch: (url: URL | string, init: RequestInit & { dispatcher?: unknown }) => {
      if (isLoopbackUrl(url)) delete init.dispatcher
      return globalThis.fetch(url, init)
    },
    // Put the granted claims in the ID token, which Gatehouse reads the profile from.
    conformIdTokenClaims: false,
    cookies: { keys: [randomBytes(32).toString("hex")] },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => claimsFor(id) }),
  })
  provider.proxy = false
  provider.on("backchannel.error", (_ctx: unknown, error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error)
    console.warn(`The local identity provider could not tell the demo about a sign-out: ${reason}`)
  })
  server.on("request", provider.callback())

  return {
    issuer,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
