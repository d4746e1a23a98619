// A browser stand-in for the passkey suites: keeps cookies, fetches CSRF tokens and options, and posts what the
// software authenticator answers to /auth/callback/<provider>, all through Auth().
import { Auth } from "../../../lib/core"
import type { Adapter } from "../../../lib/storage/adapter"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import Passkey from "../../../lib/providers/passkey"
import type { WebAuthnUserConfig } from "../../../lib/providers/webauthn"
import { SoftwareAuthenticator } from "../../fixtures/webauthn/authenticator"
import type { CeremonyOverrides } from "../../fixtures/webauthn/authenticator"
import { applyCookies, makeRequest, SECRET, testLogger, type TestLogger } from "../helpers"

export const RP_ORIGIN = "http://localhost:3000"
export const RP_ID = "localhost"

/** What the events and adapter saw during a test. */
export interface Recorder {
  createUser: number
  signIn: number
  linkAccount: number
  sessionsCreated: number
  securityAlerts: unknown[]
}

/** Wraps `adapter` so created sessions are counted (the wire shows cookies; this shows rows). */
export function counting(adapter: Adapter, recorder: Recorder): Adapter {
  const createSession = adapter.createSession?.bind(adapter)
  return {
    ...adapter,
    ...(createSession
      ? {
          createSession: async (session: Parameters<NonNullable<Adapter["createSession"]>>[0]) => {
            const created = await createSession(session)
            recorder.sessionsCreated++
            return created
          },
        }
      : {}),
  } as Adapter
}

/** A config with one passkey provider (relying party localhost:3000) over `adapter`, recording events. */
export function passkeyConfig(
  adapter: Adapter,
  options: { provider?: WebAuthnUserConfig; config?: Partial<AuthConfig>; factory?: typeof Passkey } = {},
): { config: AuthConfig & { logger: TestLogger }; recorder: Recorder } {
  const recorder: Recorder = { createUser: 0, signIn: 0, linkAccount: 0, sessionsCreated: 0, securityAlerts: [] }
  const factory = options.factory ?? Passkey
  const config = {
    secret: SECRET,
    trustHost: true,
    adapter: counting(adapter, recorder),
    providers: [
      factory({ relyingParty: { id: RP_ID, name: "Gatehouse test", origin: RP_ORIGIN }, ...options.provider }),
    ],
    logger: testLogger(),
    events: {
      createUser: () => void recorder.createUser++,
      signIn: () => void recorder.signIn++,
      linkAccount: () => void recorder.linkAccount++,
      securityAlert: (message: unknown) => void recorder.securityAlerts.push(message),
    },
    ...options.config,
  } as AuthConfig & { logger: TestLogger }
  return { config, recorder }
}

export interface OptionsAnswer {
  status: number
  body: { action?: string; options?: Record<string, unknown> & { challenge: string }; error?: string }
  response: Response
}

/** One browser: its cookies, and the last callback it posted (to replay it). */
export class Client {
  cookies: Record<string, string> = {}
  last?: { cookies: Record<string, string>; body: Record<string, string> }

  constructor(
    readonly config: AuthConfig,
    readonly providerId = "passkey",
  ) {}

  async request(
    path: string,
    init: { body?: Record<string, string>; cookies?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    const response = await Auth(
      makeRequest(path, {
        origin: RP_ORIGIN,
        cookies: init.cookies ?? this.cookies,
        body: init.body,
        headers: init.headers,
      }),
      this.config,
    )
    this.cookies = applyCookies(init.cookies ?? this.cookies, response)
    return response
  }

  async csrfToken(): Promise<string> {
    const response = await this.request("/auth/csrf")
    return ((await response.json()) as { csrfToken: string }).csrfToken
  }

  async options(query = ""): Promise<OptionsAnswer> {
    const response = await this.request(`/auth/webauthn-options/${this.providerId}${query ? `?${query}` : ""}`)
    return { status: response.status, body: (await response.clone().json()) as OptionsAnswer["body"], response }
  }

  /** Posts `data` for `action` with a CSRF token (unless `csrf: false`), and any extra `headers`. */
  async callback(
    action: string,
    data: unknown,
    extra: { csrf?: boolean; body?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    const body: Record<string, string> = {
      action,
      data: typeof data === "string" ? data : JSON.stringify(data),
      ...(extra.csrf === false ? {} : { csrfToken: await this.csrfToken() }),
      ...extra.body,
    }
    this.last = { cookies: { ...this.cookies }, body }
    return this.request(`/auth/callback/${this.providerId}`, { body, headers: extra.headers })
  }

  /** Sends the last callback again, byte for byte, with the cookies it carried. */
  async replay(): Promise<Response> {
    if (!this.last) throw new Error("nothing to replay")
    return Auth(
      makeRequest(`/auth/callback/${this.providerId}`, {
        origin: RP_ORIGIN,
        cookies: this.last.cookies,
        body: this.last.body,
      }),
      this.config,
    )
  }

  /** Options for registering, then the authenticator's answer posted back. */
  async register(
    authenticator: SoftwareAuthenticator,
    query = "",
    overrides: CeremonyOverrides = {},
    headers?: Record<string, string>,
  ) {
    const answer = await this.options(query ? `action=register&${query}` : "action=register")
    if (answer.status !== 200) throw new Error(`register options failed: ${JSON.stringify(answer.body)}`)
    const options = answer.body.options as { challenge: string; rp: { id: string }; user: { id: string } }
    return this.callback("register", authenticator.register(options, overrides), { headers })
  }

  /** Options for authenticating, then the authenticator's assertion posted back (with extra `headers`, if any). */
  async authenticate(
    authenticator: SoftwareAuthenticator,
    overrides: CeremonyOverrides = {},
    query = "",
    headers?: Record<string, string>,
  ) {
    const answer = await this.options(query ? `action=authenticate&${query}` : "action=authenticate")
    if (answer.status !== 200) throw new Error(`authenticate options failed: ${JSON.stringify(answer.body)}`)
    const options = answer.body.options as { challenge: string; rpId: string }
    return this.callback("authenticate", authenticator.authenticate(options, overrides), { headers })
  }

  async session(): Promise<{ user?: { email?: string; name?: string } } | null> {
    const response = await this.request("/auth/session")
    return (await response.json()) as { user?: { email?: string } } | null
  }
}

/** A new software authenticator for the harness's relying party. */
export function newAuthenticator(settings: ConstructorParameters<typeof SoftwareAuthenticator>[0] = {}) {
  return new SoftwareAuthenticator({ origin: RP_ORIGIN, rpId: RP_ID, ...settings })
}

/** The session cookie name the harness's (http) origin uses. */
export const SESSION_COOKIE = "authjs.session-token"
