/** Test helpers: build configs and requests, read Set-Cookie headers back. */
import { parseSetCookie } from "cookie"
import { Auth } from "../../lib/core"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import type { LoggerInstance } from "../../lib/logger"

export const ORIGIN = "https://app.example"
export const SECRET = "test-secret-0123456789abcdef0123456789"

export interface TestLogger extends LoggerInstance {
  errors: Error[]
  warnings: string[]
  /** Messages given to `debug`. */
  debugs: string[]
}

export function testLogger(): TestLogger {
  const errors: Error[] = []
  const warnings: string[] = []
  const debugs: string[] = []
  return {
    errors,
    warnings,
    debugs,
    error: (e) => errors.push(e),
    warn: (code) => warnings.push(code),
    debug: (message) => void debugs.push(message),
  }
}

export const demoUser = {
  id: "user-1",
  name: "Ada Lovelace",
  email: "ada@example.test",
  image: "https://img.test/a.png",
}

export function credentialsConfig(overrides: Partial<AuthConfig> = {}): AuthConfig & { logger: TestLogger } {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        authorize: async (c) => (c.username === "ada" && c.password === "pw" ? { ...demoUser } : null),
      }),
    ],
    logger: testLogger(),
    ...overrides,
  } as AuthConfig & { logger: TestLogger }
}

export interface RequestOptions {
  method?: string
  body?: Record<string, unknown> | string
  json?: boolean
  cookies?: Record<string, string>
  headers?: Record<string, string>
  origin?: string
}

export function makeRequest(path: string, options: RequestOptions = {}): Request {
  const headers = new Headers(options.headers)
  if (options.cookies) {
    headers.set(
      "cookie",
      Object.entries(options.cookies)
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
        .join("; "),
    )
  }
  let body: string | undefined
  if (options.body !== undefined) {
    if (typeof options.body === "string") body = options.body
    else if (options.json) {
      headers.set("content-type", "application/json")
      body = JSON.stringify(options.body)
    } else {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(options.body as Record<string, string>).toString()
    }
  }
  return new Request(`${options.origin ?? ORIGIN}${path}`, {
    method: options.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
  })
}

export interface SetCookieInfo {
  name: string
  value: string
  maxAge?: number
  expires?: Date
  path?: string
  httpOnly?: boolean
  secure?: boolean
  sameSite?: string | boolean
  raw: string
}

export function setCookies(response: Response): Map<string, SetCookieInfo> {
  const out = new Map<string, SetCookieInfo>()
  for (const raw of response.headers.getSetCookie()) {
    const parsed = parseSetCookie(raw)
    out.set(parsed.name, { ...(parsed as Omit<SetCookieInfo, "raw">), value: parsed.value ?? "", raw })
  }
  return out
}

/** Cookies a browser would keep after `response`, merged over `jar`. */
export function applyCookies(jar: Record<string, string>, response: Response): Record<string, string> {
  const next = { ...jar }
  for (const c of setCookies(response).values()) {
    if (c.maxAge === 0 || c.value === "") delete next[c.name]
    else next[c.name] = c.value
  }
  return next
}

/** GET /auth/csrf: the token and the cookies to send back with it. */
export async function csrf(
  config: AuthConfig,
  origin = ORIGIN,
): Promise<{ token: string; cookies: Record<string, string> }> {
  const response = await Auth(makeRequest("/auth/csrf", { origin }), config)
  const { csrfToken } = (await response.json()) as { csrfToken: string }
  return { token: csrfToken, cookies: applyCookies({}, response) }
}

/** Signs in through the credentials provider and returns the browser's cookies afterwards. */
export async function signIn(config: AuthConfig, origin = ORIGIN): Promise<Record<string, string>> {
  const { token, cookies } = await csrf(config, origin)
  const response = await Auth(
    makeRequest("/auth/callback/credentials", {
      origin,
      cookies,
      body: { csrfToken: token, username: "ada", password: "pw" },
    }),
    config,
  )
  if (response.status !== 302) throw new Error(`sign-in failed: ${response.status}`)
  return applyCookies(cookies, response)
}
