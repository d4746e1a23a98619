// The demo's "Sign in with the local identity provider": the example app (as `npm run demo` builds it) signs in through
// its in-process oidc-provider, end to end.
import type { Express } from "express"
import request from "supertest"
import { startLocalIdp, type StartedLocalIdp } from "../../examples/express-basic/local-idp"
import { cookieHeader, cookieJar } from "../express/apps"
import { driveAuthorization } from "../fixtures/oauth/oidc-provider"

// The demo's address (supertest picks a new port per request, so the Host header fixes the app's origin).
const HOST = "localhost:3000"
const APP = `http://${HOST}`
let idp: StartedLocalIdp
let app: Express
const savedPort = process.env.DEMO_IDP_PORT

beforeAll(async () => {
  idp = await startLocalIdp({ port: 0, appOrigins: [APP] })
  // The app reads DEMO_IDP_PORT when it is built, as in `npm run demo`.
  process.env.DEMO_IDP_PORT = String(idp.port)
  ;({ app } = await import("../../examples/express-basic/app"))
})
afterAll(async () => {
  if (savedPort === undefined) delete process.env.DEMO_IDP_PORT
  else process.env.DEMO_IDP_PORT = savedPort
  await idp.close()
})

test("the sign-in page offers the local identity provider", async () => {
  const page = await request(app).get("/auth/signin").set("Host", HOST)
  expect(page.status).toBe(200)
  expect(page.text).toContain("Sign in with the local identity provider")
  expect(page.text).toContain(`action="${APP}/auth/signin/local-idp"`)
})

test("signs in through the local identity provider and sees the protected page and API", async () => {
  const csrf = await request(app).get("/auth/csrf").set("Host", HOST)
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const start = await request(app)
    .post("/auth/signin/local-idp")
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, callbackUrl: "/protected" })
  expect(start.status).toBe(302)
  const authorizationUrl = new URL(start.headers.location)
  expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${idp.issuer}/auth`)
  expect(authorizationUrl.searchParams.get("redirect_uri")).toBe(`${APP}/auth/callback/local-idp`)
  jar = cookieJar(jar, start.headers["set-cookie"])

  // The IdP's dev login form (any login and password), then its consent form.
  const delivery = await driveAuthorization(authorizationUrl.href, `${APP}/auth/callback/`, { login: "ada" })
  const callback = await request(app)
    .get(`${delivery.url.pathname}?${delivery.params}`)
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
  expect(callback.status).toBe(302)
  expect(callback.headers.location).toBe(`${APP}/protected`)
  jar = cookieJar(jar, callback.headers["set-cookie"])
  expect(jar["authjs.session-token"]).toBeDefined()
  expect(Object.keys(jar).filter((name) => /state|nonce|pkce/.test(name))).toEqual([])

  const page = await request(app)
    .get("/protected")
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
    .set("Accept", "text/html")
  expect(page.status).toBe(200)
  expect(page.text).toContain("Only signed-in users see this, ada.")
  const api = await request(app)
    .get("/api/me")
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
    .set("Accept", "application/json")
  expect(api.status).toBe(200)
  expect(api.body.user).toEqual({ name: "ada", email: "ada@example.test", image: null })
  const home = await request(app).get("/").set("Host", HOST).set("Cookie", cookieHeader(jar))
  expect(home.text).toContain("Signed in as <strong>ada</strong> (ada@example.test).")
})

test("cancelling at the identity provider ends on the sign-in page with an error and no session", async () => {
  const csrf = await request(app).get("/auth/csrf").set("Host", HOST)
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const start = await request(app)
    .post("/auth/signin/local-idp")
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken })
  jar = cookieJar(jar, start.headers["set-cookie"])
  const delivery = await driveAuthorization(start.headers.location, `${APP}/auth/callback/`, { abort: true })
  const callback = await request(app)
    .get(`${delivery.url.pathname}?${delivery.params}`)
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
  expect(callback.headers.location).toBe(`${APP}/auth/signin?error=OAuthCallbackError`)
  jar = cookieJar(jar, callback.headers["set-cookie"])
  expect(jar["authjs.session-token"]).toBeUndefined()
})

test("the profile page lists the sign-in methods and recent activity, and links the local identity provider", async () => {
  const csrf = await request(app).get("/auth/csrf").set("Host", HOST)
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const signedIn = await request(app)
    .post("/auth/callback/credentials")
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, username: "demo", password: "gatehouse" })
  expect(signedIn.status).toBe(302)
  jar = cookieJar(jar, signedIn.headers["set-cookie"])
  const profile = async () =>
    request(app).get("/account/profile").set("Host", HOST).set("Cookie", cookieHeader(jar)).set("Accept", "text/html")
  const before = await profile()
  expect(before.status).toBe(200)
  expect(before.text).toContain("How you can sign in")
  expect(before.text).toMatch(/<li>Signed in, <time/)
  const token = /name="csrfToken" value="([^"]+)"/.exec(before.text)?.[1]
  expect(token).toBeDefined()

  const link = await request(app)
    .post("/account/profile/link")
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: token })
  expect(link.status).toBe(303)
  expect(link.headers.location.startsWith(`${idp.issuer}/auth`)).toBe(true)
  jar = cookieJar(jar, link.headers["set-cookie"])
  const delivery = await driveAuthorization(link.headers.location, `${APP}/auth/callback/`, {
    login: "linked-elsewhere",
  })
  const callback = await request(app)
    .get(`${delivery.url.pathname}?${delivery.params}`)
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
  expect(callback.status).toBe(302)
  expect(callback.headers.location).toBe(`${APP}/account/profile?linked=local-idp`)
  jar = cookieJar(jar, callback.headers["set-cookie"])

  const after = await request(app)
    .get("/account/profile?linked=local-idp")
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
  expect(after.text).toContain("The local identity provider is linked: you can sign in with it now.")
  expect(after.text).toContain("the local identity provider (OpenID Connect)")
  expect(after.text).not.toContain('action="/account/profile/link"')
  expect(after.text).toMatch(/<li>Linked a sign-in provider, <time/)
})

/** Signs in through the local IdP; `idpJar` keeps the browser's cookies at the IdP (its session). */
async function signInThroughIdp(login: string, idpJar: Map<string, string>): Promise<Record<string, string>> {
  const csrf = await request(app).get("/auth/csrf").set("Host", HOST)
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const start = await request(app)
    .post("/auth/signin/local-idp")
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, callbackUrl: "/" })
  jar = cookieJar(jar, start.headers["set-cookie"])
  const delivery = await driveAuthorization(start.headers.location, `${APP}/auth/callback/`, { login, jar: idpJar })
  const callback = await request(app)
    .get(`${delivery.url.pathname}?${delivery.params}`)
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
  expect(callback.headers.location).toBe(`${APP}/`)
  return cookieJar(jar, callback.headers["set-cookie"])
}

/** Where the IdP sends a new authorization request of this browser: its login page, or straight back to the app. */
async function authorizationGoesTo(idpJar: Map<string, string>): Promise<"login" | "app"> {
  const csrf = await request(app).get("/auth/csrf").set("Host", HOST)
  const jar = cookieJar({}, csrf.headers["set-cookie"])
  const start = await request(app)
    .post("/auth/signin/local-idp")
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken })
  // A copy: the probe's interaction cookies are not the browser's session.
  const probeJar = new Map(idpJar)
  let url = start.headers.location as string
  for (let step = 0; step < 5; step++) {
    if (url.startsWith(`${APP}/auth/callback/`)) return "app"
    const answer = await fetch(url, { headers: { cookie: idpCookies(probeJar) }, redirect: "manual" })
    keepIdpCookies(probeJar, answer)
    const body = await answer.text()
    const next = answer.headers.get("location")
    if (next) {
      url = new URL(next, url).href
      continue
    }
    if (body.includes('name="prompt" value="login"')) return "login"
    throw new Error(`unexpected IdP page at ${url}: ${answer.status} ${body.slice(0, 300)}`)
  }
  throw new Error(`too many redirects at ${url}`)
}

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

test("the home page says the session came from the local IdP and offers to end the session there too", async () => {
  const jar = await signInThroughIdp("grace", new Map())
  const home = await request(app).get("/").set("Host", HOST).set("Cookie", cookieHeader(jar))
  expect(home.text).toContain("Signed in as <strong>grace</strong> (grace@example.test).")
  expect(home.text).toMatch(/You signed in with the local identity provider \(OpenID Connect\), <time/)
  expect(home.text).toContain(
    '<input type="hidden" name="federated" value="1">\n<button class="button secondary">Sign out and end the session at the provider too</button>',
  )
})

test("plain Sign out stays local: back to the banner, and the IdP still knows the browser", async () => {
  const idpJar = new Map<string, string>()
  const jar = await signInThroughIdp("hana", idpJar)
  const logout = await request(app)
    .post("/logout")
    .set("Host", HOST)
    .set("Sec-Fetch-Site", "same-origin")
    .set("Cookie", cookieHeader(jar))
  expect(logout.status).toBe(303)
  expect(logout.headers.location).toBe(`${APP}/?signedOut=1`)
  expect(cookieJar(jar, logout.headers["set-cookie"])["authjs.session-token"]).toBeUndefined()
  // The IdP session lives on: signing in with it again goes straight through (the first-hour review's row 23).
  expect(await authorizationGoesTo(idpJar)).toBe("app")
})

test("federated sign-out: the IdP's end-session page, then back through the sign-out callback to the banner", async () => {
  const idpJar = new Map<string, string>()
  const jar = await signInThroughIdp("ines", idpJar)
  expect(await authorizationGoesTo(idpJar)).toBe("app")

  const logout = await request(app)
    .post("/logout")
    .set("Host", HOST)
    .set("Sec-Fetch-Site", "same-origin")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ federated: "1" })
  expect(logout.status).toBe(303)
  const endSession = new URL(logout.headers.location)
  expect(`${endSession.origin}${endSession.pathname}`).toBe(`${idp.issuer}/session/end`)
  expect(endSession.searchParams.get("client_id")).toBe("gatehouse-demo")
  expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(`${APP}/auth/signout-callback/local-idp`)
  expect(endSession.searchParams.get("state")).toMatch(/^[\w-]+\.[\w-]*\.[\w-]+\.[\w-]+\.[\w-]+$/)
  expect(endSession.searchParams.get("id_token_hint")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
  // The local session is gone already.
  const signedOut = cookieJar(jar, logout.headers["set-cookie"])
  expect(signedOut["authjs.session-token"]).toBeUndefined()
  const api = await request(app)
    .get("/api/me")
    .set("Host", HOST)
    .set("Cookie", cookieHeader(jar))
    .set("Accept", "application/json")
  expect(api.status).toBe(401)

  // The IdP's end-session page, in the demo's look, asks to confirm.
  const page = await fetch(endSession, { headers: { cookie: idpCookies(idpJar) } })
  keepIdpCookies(idpJar, page)
  const html = await page.text()
  expect(page.status).toBe(200)
  expect(html).toContain("<h1>End your session here?</h1>")
  expect(html).toContain('<body class="__next-auth-theme-auto">')
  expect(html).not.toContain("<script")
  const form = /<form id="op\.logoutForm" method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html)
  expect(form).not.toBeNull()
  const fields = new URLSearchParams({ logout: "yes" })
  for (const input of form![2]!.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
    fields.set(input[1]!, input[2]!)
  const confirmed = await fetch(new URL(form![1]!, idp.issuer), {
    method: "POST",
    headers: { cookie: idpCookies(idpJar), "content-type": "application/x-www-form-urlencoded" },
    body: fields,
    redirect: "manual",
  })
  keepIdpCookies(idpJar, confirmed)
  expect(confirmed.status).toBe(303)
  const back = new URL(confirmed.headers.get("location")!)
  expect(`${back.origin}${back.pathname}`).toBe(`${APP}/auth/signout-callback/local-idp`)
  expect(back.searchParams.get("state")).toBe(endSession.searchParams.get("state"))

  const callback = await request(app)
    .get(`${back.pathname}${back.search}`)
    .set("Host", HOST)
    .set("Cookie", cookieHeader(signedOut))
  expect(callback.status).toBe(302)
  expect(callback.headers.location).toBe(`${APP}/?signedOut=1`)
  const home = await request(app).get("/?signedOut=1").set("Host", HOST)
  expect(home.text).toContain("You have been signed out.")
  // The IdP session ended too: the next sign-in with it asks for the login again.
  expect(await authorizationGoesTo(idpJar)).toBe("login")
})

test("the IdP's own end-session page without a client shows its signed-out page with a way back to the demo", async () => {
  const idpJar = new Map<string, string>()
  await signInThroughIdp("jo", idpJar)
  const page = await fetch(`${idp.issuer}/session/end`, { headers: { cookie: idpCookies(idpJar) } })
  keepIdpCookies(idpJar, page)
  const html = await page.text()
  const form = /<form id="op\.logoutForm" method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html)!
  const fields = new URLSearchParams({ logout: "yes" })
  for (const input of form[2]!.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
    fields.set(input[1]!, input[2]!)
  const confirmed = await fetch(new URL(form[1]!, idp.issuer), {
    method: "POST",
    headers: { cookie: idpCookies(idpJar), "content-type": "application/x-www-form-urlencoded" },
    body: fields,
    redirect: "manual",
  })
  keepIdpCookies(idpJar, confirmed)
  const done = await fetch(new URL(confirmed.headers.get("location")!, idp.issuer), {
    headers: { cookie: idpCookies(idpJar) },
  })
  const doneHtml = await done.text()
  expect(done.status).toBe(200)
  expect(doneHtml).toContain("<h1>Signed out</h1>")
  expect(doneHtml).toContain(`<a class="button" href="${APP}/">Back to the demo</a>`)
  expect(await authorizationGoesTo(idpJar)).toBe("login")
})
