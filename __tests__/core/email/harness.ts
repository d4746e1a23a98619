/** Email-flow test harness: a recording MemoryAdapter, a config factory and a cookie-keeping browser over `Auth()`. */
import { createHash } from "node:crypto"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import type { AdapterSession, VerificationToken } from "../../../lib/storage/adapter"
import { Auth } from "../../../lib/core"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import { confirmFormOf } from "../../fixtures/magic-link"
import { applyCookies, makeRequest, testLogger, type RequestOptions, type TestLogger } from "../helpers"

export const ORIGIN = "https://app.example"
export const SECRET = "email-secret-0123456789abcdef0123456789abcdef"
export const FROM = "Gatehouse Test <no-reply@app.example>"
export const SESSION_COOKIE = "__Secure-authjs.session-token"

/** The hash Gatehouse stores for a sign-in token: SHA-256 hex of token + secret. */
export const tokenHash = (token: string, secret = SECRET) =>
  createHash("sha256").update(`${token}${secret}`).digest("hex")

/** A MemoryAdapter that also records the verification tokens and sessions it was asked to create. */
export function recordingAdapter() {
  const adapter = MemoryAdapter()
  const createdTokens: VerificationToken[] = []
  const createdSessions: AdapterSession[] = []
  const createToken = adapter.createVerificationToken.bind(adapter)
  const createSession = adapter.createSession.bind(adapter)
  adapter.createVerificationToken = async (token) => {
    createdTokens.push({ ...token })
    return createToken(token)
  }
  adapter.createSession = async (session) => {
    createdSessions.push({ ...session })
    return createSession(session)
  }
  return { adapter, createdTokens, createdSessions }
}

export type RecordingAdapter = ReturnType<typeof recordingAdapter>

export interface EmailTestConfig extends AuthConfig {
  logger: TestLogger
}

/** A config with the given providers, a recording adapter, and jest spies for the events. */
export function emailConfig(
  providers: AuthConfig["providers"],
  overrides: Partial<AuthConfig> = {},
  recording: RecordingAdapter = recordingAdapter(),
) {
  const events = {
    createUser: jest.fn(),
    updateUser: jest.fn(),
    signIn: jest.fn(),
  }
  const config: EmailTestConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: recording.adapter,
    logger: testLogger(),
    events,
    providers,
    ...overrides,
  } as EmailTestConfig
  return { config, events, ...recording }
}

/** A browser at ORIGIN: sends its cookies, keeps what Set-Cookie gives it. */
export class Browser {
  cookies: Record<string, string> = {}
  constructor(readonly config: AuthConfig) {}

  /** GET `target`, or POST `form` (an object, or an already encoded string) to it. */
  async fetch(target: string, form?: Record<string, string>, encoded?: string): Promise<Response> {
    const headers: Record<string, string> =
      encoded === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }
    return this.send(target, { body: encoded ?? form, headers })
  }

  async fetchJson(target: string, body: Record<string, unknown>): Promise<Response> {
    return this.send(target, { body, json: true })
  }

  private async send(target: string, options: RequestOptions): Promise<Response> {
    const url = new URL(target, ORIGIN)
    const response = await Auth(
      makeRequest(`${url.pathname}${url.search}`, { ...options, origin: url.origin, cookies: this.cookies }),
      this.config,
    )
    this.cookies = applyCookies(this.cookies, response)
    return response
  }

  async csrfToken(): Promise<string> {
    const { csrfToken } = (await (await this.fetch("/auth/csrf")).json()) as { csrfToken: string }
    return csrfToken
  }

  /** POST /auth/signin/:provider with a fresh CSRF token. */
  async requestLink(email: string, options: { provider?: string; callbackUrl?: string } = {}): Promise<Response> {
    const csrfToken = await this.csrfToken()
    const body: Record<string, string> = { csrfToken, email }
    if (options.callbackUrl) body.callbackUrl = options.callbackUrl
    return this.fetch(`/auth/signin/${options.provider ?? "nodemailer"}`, body)
  }

  /**
   * Opens a sign-in link from an email the way a person does: the GET shows the confirmation page (ML-5), and its
   * form is submitted. Returns the answer to that POST (or the GET's, when it is not the page).
   */
  async openLink(link: string): Promise<Response> {
    const page = await this.fetch(link)
    if (page.status !== 200) return page
    const form = confirmFormOf(await page.text())
    return this.fetch(form.action, form.fields)
  }

  async session(): Promise<{ user?: { email?: string | null; name?: string | null }; expires?: string } | null> {
    return (await this.fetch("/auth/session")).json() as Promise<{ user?: { email?: string | null } } | null>
  }
}

/** The Location header of a 302, failing the test otherwise. */
export function locationOf(response: Response): string {
  expect(response.status).toBe(302)
  return response.headers.get("location") ?? ""
}
