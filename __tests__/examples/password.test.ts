// examples/password: sign up, confirm from the dev mailbox, sign in, change the password on the account page.
import request from "supertest"
import { app, mailbox } from "../../examples/password/app"
import { cookieHeader, cookieJar } from "../express/apps"
import { confirmFormOf } from "../fixtures/magic-link"

async function messageFor(to: string, subject: string) {
  for (let i = 0; i < 400; i++) {
    const found = mailbox.messages().find((m) => m.to === to && m.subject === subject)
    if (found) return found
    await new Promise((r) => setTimeout(r, 5))
  }
  throw new Error(`no "${subject}" for ${to}`)
}

async function form(path: string, fields: Record<string, string>, jar: Record<string, string>) {
  const csrf = await request(app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
  const withCsrf = cookieJar(jar, csrf.headers["set-cookie"])
  const response = await request(app)
    .post(path)
    .set("Cookie", cookieHeader(withCsrf))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, ...fields })
  return { response, jar: cookieJar(withCsrf, response.headers["set-cookie"]) }
}

describe("examples/password", () => {
  it("signs up, confirms, and changes the password on the account page", async () => {
    const email = "example@example.test"
    expect((await request(app).get("/")).text).toContain("Create an account")
    await form("/auth/signup", { email, password: "example password 1" }, {})
    const link = new URL((await messageFor(email, "Confirm your email address")).url)
    const page = await request(app).get(`${link.pathname}${link.search}`)
    const confirmed = await form(
      "/auth/verify-email",
      confirmFormOf(page.text).fields,
      cookieJar({}, page.headers["set-cookie"]),
    )
    expect(confirmed.response.status).toBe(302)
    expect(confirmed.response.headers.location).not.toContain("error")
    let jar = confirmed.jar
    expect((await request(app).get("/").set("Cookie", cookieHeader(jar))).text).toContain(email)

    const account = await request(app).get("/account").set("Cookie", cookieHeader(jar))
    expect(account.text).toContain('action="/account/password"')
    const change = (currentPassword: string, newPassword: string) =>
      request(app)
        .post("/account/password")
        .set("Cookie", cookieHeader(jar))
        .set("Sec-Fetch-Site", "same-origin")
        .type("form")
        .send({ currentPassword, newPassword })
    const wrong = await change("not the password", "example password 2")
    expect(wrong.headers.location).toBe("/account?error=PasswordIncorrect")
    const ok = await change("example password 1", "example password 2")
    expect(ok.headers.location).toBe("/account?done=changed")
    jar = cookieJar(jar, ok.headers["set-cookie"])
    expect((await request(app).get("/account?done=changed").set("Cookie", cookieHeader(jar))).text).toContain(
      "Your password was changed.",
    )
    expect((await messageFor(email, "Your password was changed")).to).toBe(email)
    const signIn = await form("/auth/callback/password", { email, password: "example password 2" }, {})
    expect(signIn.response.headers.location).not.toContain("error")
  })
})
