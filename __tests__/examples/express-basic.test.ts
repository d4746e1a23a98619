import request from "supertest"
import { app, demoLogin } from "../../examples/express-basic/app"
import { cookieHeader, cookieJar } from "../express/apps"

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
      const link = /href="(http[^"]+\/auth\/callback\/email\?[^"]+)"/.exec(box.text)![1]!.replace(/&#38;/g, "&")
      expect(new URL(link).searchParams.get("email")).toBe("grace@example.test")
      const landed = await request(base).get(link.slice(base.length)).set("Cookie", cookieHeader(jar))
      expect(landed.status).toBe(302)
      jar = cookieJar(jar, landed.headers["set-cookie"])
      const me = await request(base).get("/api/me").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
      expect(me.body.user.email).toBe("grace@example.test")
    } finally {
      server.close()
    }
  })
})
