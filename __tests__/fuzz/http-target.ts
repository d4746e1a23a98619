/**
 * The app the HTTP fuzzer attacks (credentials, email with the memory adapter, one OAuth provider whose servers are
 * never reached) and the invariants every answer must keep. Shared by the jest slice and `npm run fuzz`.
 */
import assert from "node:assert/strict"
import { createServer, request as httpRequest, Agent, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import fc from "fast-check"
import { ExpressAuth } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { Auth } from "../../lib/core"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { encode } from "../../lib/jwt"
import Credentials from "../../lib/providers/credentials"
import Email from "../../lib/providers/email"
import type { OAuthConfig } from "../../lib/providers/types"
import { requestArb, type FuzzRequest } from "./arbitraries"

export const ORIGIN = "http://127.0.0.1:3999"
const SECRET = "fuzz-secret-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
const CLIENT_SECRET = "fuzz-client-secret-0a1b2c3d4e5f"
const PASSWORD = "correct-horse-battery"
const AUTHORIZATION_ORIGIN = "http://127.0.0.1:9"
const SESSION = "authjs.session-token"

/** What one request did on the server side, reset before each request. */
interface Observed {
  signIns: number
  /** Totals over the whole run, to show the fuzzer got past the CSRF check into the flows. */
  totals: { signIns: number; emails: number; byStatus: Record<number, number> }
  sentTokens: string[]
  loggedErrors: Error[]
}

export interface HttpFuzzApp {
  config: AuthConfig
  observed: Observed
  arbitrary: fc.Arbitrary<FuzzRequest>
  /** Strings that must never appear in an answer unless the request carried them. */
  secrets: () => string[]
  validSession: string
}

/** Builds the fuzzed app's config and the values (a CSRF pair, a valid session cookie) that let cases go deep. */
export async function createFuzzApp(): Promise<HttpFuzzApp> {
  const observed: Observed = {
    signIns: 0,
    totals: { signIns: 0, emails: 0, byStatus: {} },
    sentTokens: [],
    loggedErrors: [],
  }
  const oauth: OAuthConfig = {
    id: "op",
    name: "OP",
    type: "oauth",
    clientId: "fuzz-client",
    clientSecret: CLIENT_SECRET,
    authorization: `${AUTHORIZATION_ORIGIN}/authorize`,
    token: `${AUTHORIZATION_ORIGIN}/token`,
    userinfo: `${AUTHORIZATION_ORIGIN}/userinfo`,
    allowInsecureRequests: true,
    checks: ["pkce", "state"],
  }
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    logger: { error: (e) => observed.loggedErrors.push(e), warn: () => undefined, debug: () => undefined },
    events: {
      signIn: () => {
        observed.signIns++
        observed.totals.signIns++
      },
    },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) =>
          c.password === PASSWORD && typeof c.username === "string"
            ? { id: "u-fuzz", name: "Fuzz", email: "fuzz@example.test" }
            : null,
      }),
      Email({
        sendVerificationRequest: ({ token }) => {
          observed.sentTokens.push(token)
          observed.totals.emails++
        },
      }),
      oauth,
    ],
  }
  const csrf = await Auth(new Request(`${ORIGIN}/auth/csrf`), config)
  const csrfCookie = /authjs\.csrf-token=([^;]+)/.exec(csrf.headers.get("set-cookie") ?? "")![1]!
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const validSession = await encode({
    token: { sub: "u-fuzz", name: "Fuzz", email: "fuzz@example.test" },
    secret: SECRET,
    salt: SESSION,
  })
  const hostile = requestArb({
    basePath: "/auth",
    cookieNames: [SESSION, "authjs.csrf-token", "authjs.callback-url", "authjs.pkce.code_verifier", "authjs.state"],
    cookieValues: [csrfCookie, decodeURIComponent(csrfCookie), validSession, "http://127.0.0.1:3999/x"],
    bodyValues: [csrfToken, PASSWORD, "fuzz", "ada@example.test", "/dashboard"],
  })
  const arbitrary = fc.oneof(hostile, flowArb(hostile, csrfCookie, csrfToken, validSession))
  return {
    config,
    observed,
    arbitrary,
    validSession,
    secrets: () => [SECRET, CLIENT_SECRET, ...observed.sentTokens],
  }
}

/**
 * Requests that get past the CSRF check into the flows: a POST to a real action with the CSRF pair, plausible and
 * hostile fields (the right password included), and the rest of a hostile request's headers and cookies.
 */
function flowArb(
  hostile: fc.Arbitrary<FuzzRequest>,
  csrfCookie: string,
  csrfToken: string,
  validSession: string,
): fc.Arbitrary<FuzzRequest> {
  const value = fc.oneof(
    fc.constantFrom(PASSWORD, "fuzz", "ada@example.test", "Ada@Example.TEST ", "a@b.c,evil@x.y", "/dashboard"),
    fc.constantFrom("https://evil.example", "//evil.example", "javascript:alert(1)", "http://127.0.0.1:3999/ok"),
    fc.string({ maxLength: 20 }),
  )
  const field = fc.constantFrom("username", "password", "email", "callbackUrl", "redirect", "__proto__", "csrfToken")
  return fc
    .record({
      base: hostile,
      path: fc.constantFrom(
        "/auth/callback/credentials",
        "/auth/signin/email",
        "/auth/signin/op",
        "/auth/signin/credentials",
        "/auth/signout",
        "/auth/session",
        "/auth/callback/email",
        "/auth/callback/op",
      ),
      query: fc.constantFrom("", "?callbackUrl=%2Fx", "?callbackUrl=https%3A%2F%2Fevil.example", "?json=true"),
      fields: fc.array(fc.tuple(field, value), { maxLength: 5 }),
      json: fc.boolean(),
      withSession: fc.boolean(),
      extraCookie: fc.boolean(),
    })
    .map(({ base, path, query, fields, json, withSession, extraCookie }) => {
      const entries: [string, string][] = [
        ["csrfToken", csrfToken],
        ["username", "fuzz"],
        ["password", PASSWORD],
        ["email", "fuzz@example.test"],
      ]
      for (const [k, v] of fields) entries.push([k, v])
      const body = json
        ? `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`
        : new URLSearchParams(entries).toString()
      const cookies = [`authjs.csrf-token=${csrfCookie}`]
      if (withSession) cookies.push(`${SESSION}=${validSession}`)
      if (extraCookie && base.cookie) cookies.push(base.cookie)
      return {
        method: "POST",
        path: path + query,
        headers: base.headers.filter(([name]) => name !== "content-type"),
        cookie: cookies.join("; "),
        contentType: json ? "application/json" : "application/x-www-form-urlencoded",
        body,
      }
    })
}

const configErrorBody =
  '{"message":"There was a problem with the server configuration. Check the server logs for more information."}'

/** A received answer in a transport-neutral shape. */
export interface Answer {
  status: number
  headers: [string, string][]
  body: string
}

function header(answer: Answer, name: string): string[] {
  return answer.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v)
}

/** Every line of a header, split for Set-Cookie as Node and fetch report it. */
function setCookieLines(answer: Answer): string[] {
  return header(answer, "set-cookie").flatMap((v) => v.split(/,(?=\s*[^;=\s]+=)/))
}

/**
 * The invariants of an answer to a fuzzed request.
 *
 * @param transport "core" (Auth() directly) or "express" (Express adds its own 404/413/400 answers).
 */
export function checkAnswer(app: HttpFuzzApp, req: FuzzRequest, answer: Answer, transport: "core" | "express"): void {
  const requestText = `${req.path}\n${req.headers.map((h) => h.join(":")).join("\n")}\n${req.cookie ?? ""}\n${
    req.body ?? ""
  }`
  // 1. Never a 5xx, except the two answers the reference defines for client-chosen input (decisions.md section 3):
  //    an invalid callbackUrl -> 500 JSON config message; the error page for error=Configuration -> 500 HTML.
  if (answer.status >= 500) {
    const configurationAnswer = answer.body === configErrorBody || answer.body.includes("Server error")
    const invalidCallback =
      app.observed.loggedErrors.length > 0 && app.observed.loggedErrors.every((e) => e.name === "InvalidCallbackUrl")
    const configurationPage = /\/error\b/.test(req.path) && /error=Configuration/.test(req.path)
    assert.ok(
      configurationAnswer && (invalidCallback || configurationPage),
      `5xx answer ${answer.status}: ${answer.body.slice(0, 200)} / logged: ${app.observed.loggedErrors
        .map((e) => `${e.name}: ${e.message}`)
        .join("; ")}`,
    )
  }
  assert.ok(answer.status >= 200 && answer.status < 600, `status ${answer.status}`)
  const { byStatus } = app.observed.totals
  byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1
  // 2. Well-formed: a body has a Content-Type; a redirect has a Location on our origin or the provider's.
  if (answer.body.length > 0) assert.ok(header(answer, "content-type").length > 0, "body without Content-Type")
  if (answer.status >= 300 && answer.status < 400 && answer.status !== 304) {
    const [location] = header(answer, "location")
    assert.ok(location, `redirect ${answer.status} without Location`)
    const target = new URL(location, ORIGIN)
    assert.ok(
      target.origin === ORIGIN || target.origin === AUTHORIZATION_ORIGIN,
      `redirect off-origin: ${location} for ${req.method} ${req.path}`,
    )
  }
  // 3. No secret or token the request did not bring.
  const answerText = `${answer.headers.map((h) => h.join(":")).join("\n")}\n${answer.body}`
  for (const secret of app.secrets()) {
    if (!requestText.includes(secret)) assert.ok(!answerText.includes(secret), "a secret leaked into the answer")
  }
  // 4. No session cookie without a completed sign-in (or a valid session the request itself carried).
  const issued = setCookieLines(answer).filter((line) => {
    const [pair] = line.split(";")
    const eq = pair!.indexOf("=")
    const name = pair!.slice(0, eq).trim()
    return (name === SESSION || name.startsWith(`${SESSION}.`)) && pair!.slice(eq + 1) !== ""
  })
  if (issued.length > 0) {
    assert.ok(
      app.observed.signIns > 0 || (req.cookie ?? "").includes(app.validSession),
      `session cookie issued without a sign-in (${transport}): ${req.method} ${req.path}`,
    )
  }
}

/** Builds the Web `Request` for a case, or null when fetch itself refuses it (forbidden method, ...). */
export function toWebRequest(req: FuzzRequest): Request | null {
  try {
    const headers = new Headers()
    for (const [name, value] of req.headers) headers.append(name, value)
    if (req.cookie !== undefined) headers.set("cookie", req.cookie)
    if (req.contentType) headers.set("content-type", req.contentType)
    return new Request(`${ORIGIN}${req.path}`, { method: req.method, headers, body: req.body })
  } catch {
    return null
  }
}

/** Runs one case through `Auth()` and checks the invariants. */
export async function runCoreCase(app: HttpFuzzApp, req: FuzzRequest): Promise<void> {
  const web = toWebRequest(req)
  if (!web) return
  resetObserved(app)
  const response = await Auth(web, app.config)
  const answer: Answer = { status: response.status, headers: [...response.headers], body: await response.text() }
  checkAnswer(app, req, answer, "core")
}

function resetObserved(app: HttpFuzzApp): void {
  app.observed.signIns = 0
  app.observed.loggedErrors.length = 0
}

/** The fuzzed app behind Express 5 on a loopback port, with a keep-alive client. */
export interface ExpressTarget {
  send(req: FuzzRequest): Promise<Answer | null>
  close(): Promise<void>
  escaped: Error[]
}

export async function startExpressTarget(app: HttpFuzzApp): Promise<ExpressTarget> {
  const escaped: Error[] = []
  const server: Server = createServer(
    express()
      .use("/auth", ExpressAuth(app.config))
      .use((error: Error & { status?: number }, _req: express.Request, res: express.Response, _next: unknown) => {
        // Express's own handler would answer the same status, but logs every error; the run would drown in them.
        if (!error.status || error.status >= 500) escaped.push(error)
        res
          .status(error.status ?? 500)
          .type("text/plain")
          .send(error.message)
      }),
  )
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  const send = (req: FuzzRequest): Promise<Answer | null> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | string[]> = {}
      for (const [name, value] of req.headers) {
        const prev = headers[name]
        headers[name] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value]
      }
      headers.host = new URL(ORIGIN).host
      if (req.cookie !== undefined) headers.cookie = req.cookie.replace(/[^\x20-\x7e]/g, "")
      if (req.contentType !== undefined) headers["content-type"] = req.contentType
      let path = ""
      for (const byte of Buffer.from(req.path, "utf8")) {
        path += byte > 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, "0")}`
      }
      let outgoing
      try {
        outgoing = httpRequest({ host: "127.0.0.1", port, method: req.method.toUpperCase(), path, headers, agent })
      } catch {
        resolve(null) // Node's client refuses it (invalid method, path or header): not a request a server sees.
        return
      }
      outgoing.on("error", reject)
      outgoing.on("response", (res) => {
        const chunks: Buffer[] = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const headerPairs: [string, string][] = []
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            headerPairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!])
          resolve({ status: res.statusCode ?? 0, headers: headerPairs, body: Buffer.concat(chunks).toString("utf8") })
        })
        res.on("error", reject)
      })
      outgoing.end(req.body)
    })
  return {
    escaped,
    send,
    close: async () => {
      agent.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Runs one case through Express over loopback HTTP and checks the invariants. */
export async function runExpressCase(app: HttpFuzzApp, target: ExpressTarget, req: FuzzRequest): Promise<void> {
  resetObserved(app)
  target.escaped.length = 0
  const answer = await target.send(req)
  if (!answer) return
  // Express's own answers (404 for other paths, 413/400 from the body reader) are fine; a 500 from Express means an
  // error escaped the middleware.
  assert.deepEqual(
    target.escaped.map((e) => e.message),
    [],
    `error escaped to Express for ${req.method} ${req.path}`,
  )
  if (req.method.toUpperCase() === "HEAD") return
  checkAnswer(app, req, answer, "express")
}
