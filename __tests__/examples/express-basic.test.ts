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
    expect(api.body.user).toEqual({ name: "Demo User", email: "demo@example.test" })
  })
})
