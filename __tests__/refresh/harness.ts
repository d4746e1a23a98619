// Refresh-token rotation harness: a real oidc-provider issuing rotating refresh tokens, a tap on its token endpoint
// (counts refresh grants and, per test, misbehaves: hangs, drops the refresh token, answers an error, swaps the ID
// token's subject), a cookie-keeping browser, and an in-process sign-in through the web flavour.
import { importJWK, SignJWT } from "jose"
import type { OAuthConfig } from "../../lib/providers/types"
import type { WebGatehouse } from "../../lib/web/gatehouse"
import { customFetch } from "../../lib/symbols"
import { driveAuthorization, startOidcProvider, type StartedOidcProvider } from "../fixtures/oauth/oidc-provider"

export const APP = "http://app.test"
export const SECRET = "refresh-rotation-secret-0123456789abcdef0123456789"
/** Access tokens of the test OP live this long, in seconds. */
export const AT_TTL = 600

export type TapMode =
  | { kind: "pass" }
  | { kind: "hang" }
  | { kind: "drop-refresh-token" }
  | { kind: "answer"; status: number; body: Record<string, unknown> }
  | { kind: "id-token-sub"; sub: string }
  | { kind: "id-token"; claims: Record<string, unknown>; issuer?: string }

/** The token endpoint as the app reaches it: every refresh grant counted, the answer shaped by `mode`. */
export interface TokenTap {
  /** Refresh grants that reached the endpoint (or the misbehaving stand-in). */
  calls: number
  mode: TapMode
  /** Every token string the OP handed out (access, refresh, ID): none may leak anywhere. */
  issued: Set<string>
}

export interface RefreshOp {
  op: StartedOidcProvider
  tap: TokenTap
  /** A provider config for the app, with `refresh: true` and the tap as its fetch. */
  provider(extra?: Partial<OAuthConfig>): OAuthConfig
  /** Redeems a refresh token directly at the OP, as another client of the same grant would (out of band). */
  redeemElsewhere(refreshToken: string): Promise<Response>
  close(): Promise<void>
}

export async function startRefreshOp(): Promise<RefreshOp> {
  const op = await startOidcProvider({
    clientId: "refresh-app",
    redirectUris: [`${APP}/auth/callback/op`],
    config: {
      issueRefreshToken: () => true,
      rotateRefreshToken: () => true,
      ttl: {
        Interaction: 600,
        Session: 3600,
        Grant: 86400,
        AccessToken: AT_TTL,
        AuthorizationCode: 60,
        IdToken: 3600,
        RefreshToken: 86400,
      },
    },
  })
  const tap: TokenTap = { calls: 0, mode: { kind: "pass" }, issued: new Set() }
  const key = await importJWK(op.signingKey as never, "RS256")

  const remember = (json: Record<string, unknown>) => {
    for (const name of ["access_token", "refresh_token", "id_token"]) {
      if (typeof json[name] === "string") tap.issued.add(json[name])
    }
  }
  const tapped = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url
    const isToken = url.startsWith(`${op.issuer}/token`)
    const isRefresh = isToken && String(init.body).includes("grant_type=refresh_token")
    if (!isToken) return fetch(input, init)
    if (!isRefresh) {
      const response = await fetch(input, init)
      remember((await response.clone().json()) as Record<string, unknown>)
      return response
    }
    tap.calls++
    const mode = tap.mode
    if (mode.kind === "hang") {
      return new Promise<Response>((_, reject) => {
        init.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true })
      })
    }
    if (mode.kind === "answer") {
      return Response.json(mode.body, { status: mode.status, headers: { "cache-control": "no-store" } })
    }
    const response = await fetch(input, init)
    const json = (await response.json()) as Record<string, unknown>
    remember(json)
    if (mode.kind === "drop-refresh-token") delete json.refresh_token
    if (mode.kind === "id-token-sub" || mode.kind === "id-token") {
      const now = Math.floor(Date.now() / 1000)
      const claims: Record<string, unknown> =
        mode.kind === "id-token" ? { sub: "alice", ...mode.claims } : { sub: mode.sub }
      json.id_token = await new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: "op-rs256" })
        .setIssuer(mode.kind === "id-token" && mode.issuer ? mode.issuer : op.issuer)
        .setAudience(typeof claims.aud === "string" ? claims.aud : op.clientId)
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(key)
      tap.issued.add(json.id_token as string)
    }
    return Response.json(json, { status: response.status, headers: { "cache-control": "no-store" } })
  }) as typeof fetch

  return {
    op,
    tap,
    provider: (extra = {}) => ({
      id: "op",
      name: "Test OP",
      type: "oidc",
      issuer: op.issuer,
      clientId: op.clientId,
      clientSecret: op.clientSecret,
      allowInsecureRequests: true,
      checks: ["pkce", "state", "nonce"],
      refresh: true,
      [customFetch]: tapped,
      ...extra,
    }),
    redeemElsewhere: (refreshToken) =>
      fetch(`${op.issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${op.clientId}:${op.clientSecret}`).toString("base64")}`,
        },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken }),
      }),
    close: () => op.close(),
  }
}

/** The app's cookies in one browser tab (or a copy of them, for a second tab). */
export class Browser {
  cookies = new Map<string, string>()

  copy(): Browser {
    const other = new Browser()
    other.cookies = new Map(this.cookies)
    return other
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
  }

  request(path: string, init: RequestInit = {}): Request {
    const headers = new Headers(init.headers)
    if (this.cookies.size) headers.set("cookie", this.header())
    return new Request(`${APP}${path}`, { ...init, headers })
  }

  /** Keeps the cookies a response sets; returns the Set-Cookie lines. */
  absorb(response: Response): string[] {
    const lines = response.headers.getSetCookie()
    for (const line of lines) {
      const [pair] = line.split(";")
      const eq = pair.indexOf("=")
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      if (/max-age=0/i.test(line) || /expires=thu, 01 jan 1970/i.test(line) || value === "") this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return lines
  }

  /** The session cookie value (chunks joined), or undefined. */
  session(): string | undefined {
    const whole = this.cookies.get("authjs.session-token")
    if (whole) return whole
    const chunks = [...this.cookies].filter(([k]) => k.startsWith("authjs.session-token.")).sort()
    return chunks.length ? chunks.map(([, v]) => v).join("") : undefined
  }
}

/** Signs `browser` in at the OP through the web flavour, in process. */
export async function signIn(gh: WebGatehouse, browser: Browser, login = "alice"): Promise<void> {
  const start = await gh.signIn(browser.request("/", { method: "POST" }), "op", { redirect: true })
  browser.absorb(start)
  const location = start.headers.get("location")
  if (!location) throw new Error(`no authorization redirect: ${start.status}`)
  const delivery = await driveAuthorization(location, `${APP}/auth/callback/op`, { login })
  const callback = await gh.handle(browser.request(`/auth/callback/op?${delivery.params}`))
  if (!callback || callback.status !== 302) throw new Error(`callback answered ${callback?.status}`)
  if (callback.headers.get("location")?.includes("error")) {
    throw new Error(`callback failed: ${callback.headers.get("location")}`)
  }
  browser.absorb(callback)
}

/** Calls `getAccessToken` as a route handler would: the cookies it queues go to the browser. */
export async function accessToken(
  gh: WebGatehouse,
  browser: Browser,
  options: { force?: boolean; provider?: string } = {},
): Promise<{ value?: Awaited<ReturnType<WebGatehouse["getAccessToken"]>>; error?: unknown; setCookies: string[] }> {
  const request = browser.request("/api")
  let value: Awaited<ReturnType<WebGatehouse["getAccessToken"]>> | undefined
  let error: unknown
  try {
    value = await gh.getAccessToken(request, options.provider, { force: options.force })
  } catch (caught) {
    error = caught
  }
  const setCookies = browser.absorb(gh.applyCookies(request, new Response(null)))
  return { value, error, setCookies }
}

/** A logger that keeps every line it is given, for the "no token in any log" check. */
export function recordingLogger(): {
  lines: string[]
  error(e: Error): void
  warn(c: string): void
  debug(m: string, x?: unknown): void
} {
  const lines: string[] = []
  const text = (value: unknown) => {
    if (value instanceof Error) {
      return `${value.name} ${value.message} ${JSON.stringify(value.cause, (_k, v: unknown) => (v instanceof Error ? `${v.name}: ${v.message}` : v))}`
    }
    return typeof value === "string" ? value : JSON.stringify(value)
  }
  return {
    lines,
    error: (e) => void lines.push(text(e)),
    warn: (c) => void lines.push(text(c)),
    debug: (m, x) => void lines.push(`${m} ${text(x)}`),
  }
}
