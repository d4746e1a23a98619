// The OpenID Provider behind a fault proxy: a sign-in start (discovery) or an OAuth callback (token, JWKS) against an
// OP that stops answering, refuses connections, or cuts them mid-request ends within httpTimeout on the error page,
// with no session and no user; the next sign-in succeeds once the OP is back.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import request from "supertest"
import { ExpressAuth } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { cookieHeader, cookieJar } from "../express/apps"
import { startFaultProxy, type FaultMode, type FaultProxy } from "../fixtures/fault-proxy"
import {
  driveAuthorization,
  startOidcProvider,
  testOidcProvider,
  type StartedOidcProvider,
} from "../fixtures/oauth/oidc-provider"

const SESSION = "authjs.session-token"
let proxy: FaultProxy
let op: StartedOidcProvider
let server: Server
let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
let origin = ""

beforeAll(async () => {
  server = createServer((req, res) => handler(req, res))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy = await startFaultProxy({ host: "127.0.0.1", port: 1 })
  op = await startOidcProvider({ redirectUris: [`${origin}/auth/callback/op`], issuer: `http://${proxy.address}` })
  proxy.target = { host: "127.0.0.1", port: op.port }
})
afterEach(() => {
  proxy.reset()
  proxy.mode = "pass"
})
afterAll(async () => {
  await op.close()
  await proxy.close()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** A fresh app (so discovery is not cached yet) with database sessions in memory and httpTimeout 300 ms. */
function startApp() {
  const errors: Error[] = []
  const adapter: Adapter = MemoryAdapter()
  const config: AuthConfig = {
    secret: "faults-oidc-secret-0123456789abcdef0123",
    trustHost: true,
    adapter,
    httpTimeout: 300,
    logger: { error: (e) => errors.push(e), warn: () => undefined, debug: () => undefined },
    providers: [testOidcProvider(op, "op", { checks: ["pkce", "state", "nonce"] })],
  }
  const app = express()
  app.use("/auth", ExpressAuth(config))
  app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    errors.push(error)
    res.status(500).json({ escaped: error.message })
  })
  handler = app
  return { errors, adapter }
}

async function startSignIn(headers: Record<string, string> = {}) {
  const csrf = await request(server).get("/auth/csrf")
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const start = await request(server)
    .post("/auth/signin/op")
    .set(headers)
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, callbackUrl: "/dashboard" })
  jar = cookieJar(jar, start.headers["set-cookie"])
  return { start, jar }
}

/** Starts a sign-in and logs in at the OP; returns the callback request, not yet sent, and the browser's cookies. */
async function authorize(login: string) {
  const { start, jar } = await startSignIn()
  expect(start.status).toBe(302)
  const delivery = await driveAuthorization(start.headers.location!, `${origin}/auth/callback/`, { login })
  const deliver = () =>
    request(server).get(`${delivery.url.pathname}?${delivery.params}`).set("Cookie", cookieHeader(jar))
  return { jar, deliver }
}

function expectCleanFailure(response: request.Response, errors: Error[]) {
  expect(response.status).toBe(302)
  expect(response.headers.location).toBe(`${origin}/auth/error?error=Configuration`)
  const cookies = ([] as string[]).concat(response.headers["set-cookie"] ?? [])
  expect(cookies.filter((c) => c.startsWith(`${SESSION}=`) && !/Max-Age=0/.test(c))).toEqual([])
  expect(errors.some((e) => "escaped" in e || (e as { status?: number }).status === 500)).toBe(false)
  // Named by code: the provider could not be reached or did not answer in time.
  expect(errors.map((e) => (e as { code?: string }).code)).toContain("oauth_unavailable")
}

/** The outage answer to an API client: 503 JSON, Retry-After, no-store, no session. */
function expectServiceUnavailable(response: request.Response) {
  expect(response.status).toBe(503)
  expect(response.headers["content-type"]).toMatch(/^application\/json/)
  expect(response.headers["retry-after"]).toBe("5")
  expect(response.headers["cache-control"]).toBe("no-store")
  const cookies = ([] as string[]).concat(response.headers["set-cookie"] ?? [])
  expect(cookies.filter((c) => c.startsWith(`${SESSION}=`) && !/Max-Age=0/.test(c))).toEqual([])
}

/** Applies a fault: the OP stops answering, refuses new connections, or cuts the request in flight. */
async function withFault<T>(fault: FaultMode | "reset", run: () => Promise<T>): Promise<T> {
  if (fault !== "reset") {
    proxy.reset() // connections kept alive from earlier requests would otherwise dodge "drop"
    proxy.mode = fault
    return run()
  }
  proxy.mode = "blackhole"
  const pending = run()
  await new Promise((resolve) => setTimeout(resolve, 50))
  proxy.reset()
  return pending
}

describe.each<FaultMode | "reset">(["blackhole", "drop", "reset"])("OpenID Provider fault: %s", (fault) => {
  it("sign-in start (discovery) fails cleanly within httpTimeout, and works once the OP is back", async () => {
    const { errors } = startApp()
    const { start } = await withFault(fault, () => startSignIn())
    expectCleanFailure(start, errors)
    expect(errors.length).toBeGreaterThan(0)

    proxy.mode = "pass"
    const again = await startSignIn()
    expect(again.start.status).toBe(302)
    expect(again.start.headers.location).toMatch(new RegExp(`^http://${proxy.address}/`))
  })

  it("API clients get 503 JSON: the Auth.js client's sign-in start, and a JSON callback", async () => {
    const { errors } = startApp()
    const { start } = await withFault(fault, () => startSignIn({ "X-Auth-Return-Redirect": "1" }))
    expectServiceUnavailable(start)
    expect(start.body).toEqual({ error: "ServiceUnavailable", url: `${origin}/auth/error?error=Configuration` })
    expect(errors.map((e) => (e as { code?: string }).code)).toContain("oauth_unavailable")

    proxy.reset()
    proxy.mode = "pass"
    const { deliver } = await authorize(`api-${fault}`)
    const response = await withFault(fault, () => deliver().set("Accept", "application/json"))
    expectServiceUnavailable(response)
    expect(response.body).toEqual({ error: "ServiceUnavailable" })
  })

  it("the OAuth callback (token endpoint) fails cleanly: no session, no user; the next sign-in succeeds", async () => {
    const { errors, adapter } = startApp()
    const login = `olga-${fault}`
    const { deliver } = await authorize(login)
    const response = await withFault(fault, deliver)
    expectCleanFailure(response, errors)
    expect(await adapter.getUserByEmail!(`${login}@example.test`)).toBeNull()

    proxy.reset()
    proxy.mode = "pass"
    errors.length = 0
    const retry = await authorize(login)
    const ok = await retry.deliver()
    expect(errors).toEqual([])
    expect(ok.headers.location).toBe(`${origin}/dashboard`)
    const session = cookieJar(retry.jar, ok.headers["set-cookie"])[SESSION]
    expect(session).toBeTruthy()
    expect((await adapter.getUserByEmail!(`${login}@example.test`))?.email).toBe(`${login}@example.test`)
  })
})

it("a slow OP within httpTimeout still signs in (delay mode)", async () => {
  const { errors, adapter } = startApp()
  const { deliver } = await authorize("pia")
  proxy.mode = "delay"
  proxy.delayMs = 20
  const response = await deliver()
  expect(errors).toEqual([])
  expect(response.headers.location).toBe(`${origin}/dashboard`)
  expect(await adapter.getUserByEmail!("pia@example.test")).not.toBeNull()
})
