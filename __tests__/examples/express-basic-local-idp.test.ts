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
