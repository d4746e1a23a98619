// The demo's local identity provider ends a demo session through back-channel logout (issue 15): signed in through
// the IdP, the user ends their session on the IdP's own sign-out page; the IdP posts a logout token to the demo, which
// deletes the session row of that IdP session. The app listens for real here, since the IdP calls it. The IdP runs in
// a process of its own, as in `npm run demo`: there oidc-provider's SSRF guard is real (under Jest's VM it cannot set
// itself up and would let loopback through), so this meets the fetch the demo's IdP really makes (issue 29, item 1).
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import request from "supertest"
import { isLoopbackUrl } from "../../examples/express-basic/local-idp"
import { startIdpProcess, type IdpProcess } from "../fixtures/local-idp-child"
import { cookieHeader, cookieJar } from "../express/apps"
import { driveAuthorization } from "../fixtures/oauth/oidc-provider"

jest.setTimeout(30_000)

let server: Server
let origin: string
let idp: IdpProcess
const savedPort = process.env.DEMO_IDP_PORT
const warnings: string[] = []
let warn: jest.SpyInstance

beforeAll(async () => {
  server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  idp = await startIdpProcess({
    port: 0,
    appOrigins: [origin],
    backchannelLogoutUri: `${origin}/auth/backchannel-logout/local-idp`,
  })
  process.env.DEMO_IDP_PORT = String(idp.port)
  const demo = await import("../../examples/express-basic/app")
  server.on("request", demo.app)
  warn = jest.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(args.join(" ")))
})

afterAll(async () => {
  warn?.mockRestore()
  await idp?.close()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  if (savedPort === undefined) delete process.env.DEMO_IDP_PORT
  else process.env.DEMO_IDP_PORT = savedPort
})

const idpCookies = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ")

function keepIdpCookies(jar: Map<string, string>, response: globalThis.Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";")
    const eq = pair!.indexOf("=")
    const name = pair!.slice(0, eq).trim()
    const value = pair!.slice(eq + 1).trim()
    if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === "") jar.delete(name)
    else jar.set(name, value)
  }
}

async function signInThroughIdp(login: string, idpJar: Map<string, string>): Promise<string> {
  const csrf = await request(origin).get("/auth/csrf")
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const start = await request(origin)
    .post("/auth/signin/local-idp")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, callbackUrl: "/" })
  jar = cookieJar(jar, start.headers["set-cookie"])
  const delivery = await driveAuthorization(start.headers.location, `${origin}/auth/callback/`, { login, jar: idpJar })
  const callback = await request(origin)
    .get(`${delivery.url.pathname}?${delivery.params}`)
    .set("Cookie", cookieHeader(jar))
  expect(callback.headers.location).toBe(`${origin}/`)
  jar = cookieJar(jar, callback.headers["set-cookie"])
  return cookieHeader(jar)
}

const apiStatus = async (cookie: string) =>
  (await request(origin).get("/api/me").set("Cookie", cookie).set("Accept", "application/json")).status

/** Opens the IdP's own sign-out page (no client) and confirms it, as a person would. */
async function endSessionAtIdp(idpJar: Map<string, string>): Promise<string> {
  const page = await fetch(`${idp.issuer}/session/end`, { headers: { cookie: idpCookies(idpJar) } })
  keepIdpCookies(idpJar, page)
  const html = await page.text()
  expect(html).toContain("<h1>End your session here?</h1>")
  const form = /<form id="op\.logoutForm" method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html)!
  const fields = new URLSearchParams({ logout: "yes" })
  for (const input of form[2]!.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
    fields.set(input[1]!, input[2]!)
  }
  const confirmed = await fetch(new URL(form[1]!, idp.issuer), {
    method: "POST",
    headers: { cookie: idpCookies(idpJar), "content-type": "application/x-www-form-urlencoded" },
    body: fields,
    redirect: "manual",
  })
  keepIdpCookies(idpJar, confirmed)
  expect(confirmed.status).toBe(303)
  const done = await fetch(new URL(confirmed.headers.get("location")!, idp.issuer), {
    headers: { cookie: idpCookies(idpJar) },
  })
  return done.text()
}

test("the home page of an IdP session links to the IdP's own sign-out page", async () => {
  const cookie = await signInThroughIdp("kim", new Map())
  const home = await request(origin).get("/").set("Cookie", cookie)
  expect(home.text).toContain(`<a href="${idp.issuer}/session/end">its\nsign-out page</a>`)
  expect(home.text).toContain("it tells the demo through back-channel logout")
})

test("ending the session at the IdP ends that demo session through back-channel logout, and only that one", async () => {
  const firstIdpBrowser = new Map<string, string>()
  const ended = await signInThroughIdp("lee", firstIdpBrowser)
  // The same person in another browser: another IdP session, another demo session.
  const other = await signInThroughIdp("lee", new Map())
  expect(await apiStatus(ended)).toBe(200)
  expect(await apiStatus(other)).toBe(200)

  const html = await endSessionAtIdp(firstIdpBrowser)
  expect(html).toContain("<h1>Signed out</h1>")
  expect(html).toContain(`<a class="button" href="${origin}/">Back to the demo</a>`)

  // The demo heard it: the session of that IdP session is gone, the other browser's stays.
  expect(await apiStatus(ended)).toBe(401)
  expect(await apiStatus(other)).toBe(200)
  const home = await request(origin).get("/").set("Cookie", ended)
  expect(home.text).toContain("You are not signed in.")
  expect(warnings.filter((w) => w.includes("could not tell the demo"))).toEqual([])
  // The guard was set up (this is the real path), and the demo's loopback call went past it.
  expect(idp.stderr()).not.toContain("failed to setup SSRF protection")
  expect(idp.stderr()).not.toContain("could not tell the demo")
})

test("the dev IdP drops the SSRF guard for loopback addresses only", () => {
  expect(isLoopbackUrl("http://127.0.0.1:3000/auth/backchannel-logout/local-idp")).toBe(true)
  expect(isLoopbackUrl("http://127.8.9.10/")).toBe(true)
  expect(isLoopbackUrl("http://localhost:4000/")).toBe(true)
  expect(isLoopbackUrl("http://[::1]:4000/")).toBe(true)
  expect(isLoopbackUrl("http://10.0.0.5/")).toBe(false)
  expect(isLoopbackUrl("http://169.254.169.254/latest/meta-data")).toBe(false)
  expect(isLoopbackUrl("http://127.0.0.1.evil.example/")).toBe(false)
  expect(isLoopbackUrl("not a url")).toBe(false)
})

test("a demo session from the demo account is not touched by the IdP's sign-out", async () => {
  const idpBrowser = new Map<string, string>()
  const idpSession = await signInThroughIdp("max", idpBrowser)
  const csrf = await request(origin).get("/auth/csrf")
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const ok = await request(origin)
    .post("/auth/callback/credentials")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, username: "demo", password: "gatehouse" })
  jar = cookieJar(jar, ok.headers["set-cookie"])
  const credentials = cookieHeader(jar)

  await endSessionAtIdp(idpBrowser)
  expect(await apiStatus(idpSession)).toBe(401)
  expect(await apiStatus(credentials)).toBe(200)
})
