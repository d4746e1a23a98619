import request from "supertest"
import { app, demoLogin } from "../../examples/express-basic/app"
import { cookieHeader, cookieJar } from "../express/apps"
import { openLinkOverHttp } from "../fixtures/magic-link"

describe("examples/express-basic", () => {
  it("a visitor is not signed in; the protected page redirects and the API answers 401", async () => {
    const home = await request(app).get("/")
    expect(home.text).toContain("You are not signed in.")
    const page = await request(app).get("/protected").set("Accept", "text/html")
    expect(page.status).toBe(302)
    expect(page.headers.location).toMatch(/^\/auth\/signin\?callbackUrl=/)
    const api = await request(app).get("/api/me").set("Accept", "application/json")
    expect(api.status).toBe(401)
  })

  it("signs in with the demo login and sees the protected page and API", async () => {
    const signin = await request(app).get("/auth/signin")
    expect(signin.text).toContain("Demo account")
    const csrf = await request(app).get("/auth/csrf")
    let jar = cookieJar({}, csrf.headers["set-cookie"])
    const wrong = await request(app)
      .post("/auth/callback/credentials")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, username: "demo", password: "nope" })
    expect(wrong.headers.location).toMatch(/error=CredentialsSignin&code=credentials$/)

    const ok = await request(app)
      .post("/auth/callback/credentials")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, ...demoLogin })
    expect(ok.status).toBe(302)
    jar = cookieJar(jar, ok.headers["set-cookie"])

    const home = await request(app).get("/").set("Cookie", cookieHeader(jar))
    expect(home.text).toContain("Signed in as <strong>Demo User</strong>")
    const page = await request(app).get("/protected").set("Cookie", cookieHeader(jar)).set("Accept", "text/html")
    expect(page.status).toBe(200)
    const api = await request(app).get("/api/me").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(api.body.user).toEqual({ name: "Demo User", email: "demo@example.test", image: null })
  })
})

describe("examples/express-basic: the home page's server-side sign-in form and sign-out button", () => {
  it("signs in through POST /login, then out through POST /logout, ending the database session", async () => {
    const home = await request(app).get("/")
    expect(home.text).toContain('<form class="login" method="post" action="/login">')
    // A browser posting the home page's form sends Sec-Fetch-Site: same-origin.
    const wrong = await request(app)
      .post("/login")
      .set("Sec-Fetch-Site", "same-origin")
      .type("form")
      .send({ username: "demo", password: "nope" })
    expect(wrong.status).toBe(401)
    expect(wrong.text).toContain("Wrong username or password.")
    expect(wrong.headers["set-cookie"]).toBeUndefined()

    const login = await request(app)
      .post("/login")
      .set("Sec-Fetch-Site", "same-origin")
      .type("form")
      .send({ ...demoLogin })
    expect(login.status).toBe(303)
    expect(new URL(login.headers.location!).pathname).toBe("/protected")
    const jar = cookieJar({}, login.headers["set-cookie"])
    const signedIn = await request(app).get("/").set("Cookie", cookieHeader(jar))
    expect(signedIn.text).toContain('<form method="post" action="/logout">')

    const logout = await request(app)
      .post("/logout")
      .set("Sec-Fetch-Site", "same-origin")
      .set("Cookie", cookieHeader(jar))
    expect(logout.status).toBe(303)
    expect(logout.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?signedOut=1$/)
    const after = cookieJar(jar, logout.headers["set-cookie"])
    expect(after["authjs.session-token"]).toBeUndefined()
    // The old token no longer opens anything: the session row is gone.
    const api = await request(app).get("/api/me").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(api.status).toBe(401)
  })

  it("a cross-site post to /login or /logout is refused and sets nothing", async () => {
    for (const path of ["/login", "/logout"]) {
      const res = await request(app)
        .post(path)
        .set("Sec-Fetch-Site", "cross-site")
        .set("Origin", "https://evil.example")
        .type("form")
        .send({ ...demoLogin })
      expect(res.status).toBe(403)
      expect(res.headers["set-cookie"]).toBeUndefined()
    }
  })
})

describe("examples/express-basic: database sessions and the dev mailbox", () => {
  it("credentials sign-in stores a database session: the cookie is an opaque token", async () => {
    const csrf = await request(app).get("/auth/csrf")
    let jar = cookieJar({}, csrf.headers["set-cookie"])
    const ok = await request(app)
      .post("/auth/callback/credentials")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, ...demoLogin })
    jar = cookieJar(jar, ok.headers["set-cookie"])
    expect(jar["authjs.session-token"]).toMatch(/^[0-9a-f]{64}$/)
    const api = await request(app).get("/api/me").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(api.body.user.name).toBe("Demo User")
  })

  it("email sign-in: the link lands in /dev/mailbox and signs the user in", async () => {
    const server = app.listen(0)
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    try {
      const csrf = await request(base).get("/auth/csrf")
      let jar = cookieJar({}, csrf.headers["set-cookie"])
      const sent = await request(base)
        .post("/auth/signin/email")
        .set("Cookie", cookieHeader(jar))
        .type("form")
        .send({ csrfToken: csrf.body.csrfToken, email: "Grace@Example.test" })
      expect(sent.status).toBe(302)
      expect(sent.headers.location).toBe(`${base}/auth/verify-request?provider=email&type=email`)
      const box = await request(base).get("/dev/mailbox")
      const link = /href="(http[^"]+\/auth\/callback\/email\?[^"]+)"/.exec(box.text)![1]!.replace(/&amp;/g, "&")
      expect(new URL(link).searchParams.get("email")).toBe("grace@example.test")
      // The link shows the confirmation page first (ML-5); its button posts the sign-in.
      const landed = await openLinkOverHttp(link, cookieHeader(jar))
      expect(landed.status).toBe(302)
      jar = cookieJar(jar, landed.headers.getSetCookie())
      const me = await request(base).get("/api/me").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
      expect(me.body.user.email).toBe("grace@example.test")
    } finally {
      server.close()
    }
  })
})

describe("examples/express-basic: passkeys", () => {
  it("offers a passkey form on the sign-in page and serves the client module for the home page's button", async () => {
    const signin = await request(app).get("/auth/signin")
    expect(signin.text).toContain("Sign in with Passkey")
    expect(signin.headers["content-security-policy"]).toMatch(/script-src 'nonce-[^']+'/)
    const client = await request(app).get("/client/webauthn.js")
    expect(client.status).toBe(200)
    expect(client.headers["content-type"]).toMatch(/^text\/javascript/)
    expect(client.text).toContain("export function registerPasskey")
    expect(client.text).toContain("export function signInWithPasskey")
  })
})
