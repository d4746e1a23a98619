// The demo offers "Create an account" and a password reset, with the links in the dev mailbox (issue 31).
import request from "supertest"
import { app, mailbox } from "../../examples/express-basic/app"
import { cookieHeader, cookieJar } from "../express/apps"
import { confirmFormOf } from "../fixtures/magic-link"

/** The newest mailbox message to `to` with this subject (hooks may run just after the answer). */
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

describe("examples/express-basic: email and password accounts", () => {
  it("creates an account, confirms it from the dev mailbox, and resets the password from there", async () => {
    const email = `demo-${Date.now()}@example.test`
    const signin = await request(app).get("/auth/signin")
    expect(signin.text).toContain("Create an account")
    expect(signin.text).toContain("Forgot password?")

    const signUp = await form("/auth/signup", { email, password: "demo password 1" }, {})
    expect(signUp.response.headers.location).toMatch(/\/auth\/verify-request\?provider=password&type=signup$/)
    const confirm = await messageFor(email, "Confirm your email address")
    const mailboxPage = await request(app).get("/dev/mailbox")
    expect(mailboxPage.text).toContain(`Confirm ${email}`)
    const link = new URL(confirm.url)
    const page = await request(app).get(`${link.pathname}${link.search}`)
    const { fields } = confirmFormOf(page.text)
    const verified = await form("/auth/verify-email", fields, cookieJar({}, page.headers["set-cookie"]))
    expect(verified.response.status).toBe(302)
    const home = await request(app).get("/").set("Cookie", cookieHeader(verified.jar))
    expect(home.text).toContain(email)

    await form("/auth/forgot-password", { email }, {})
    const reset = new URL((await messageFor(email, "Reset your password")).url)
    const done = await form(
      "/auth/reset-password",
      { token: reset.searchParams.get("token")!, email, password: "demo password 2" },
      {},
    )
    expect(done.response.headers.location).toMatch(/\/auth\/signin\?reset=1$/)
    expect((await request(app).get("/dev/mailbox")).text).toContain("Your password was changed")
    const signedIn = await form("/auth/callback/password", { email, password: "demo password 2" }, {})
    expect(signedIn.response.headers.location).not.toContain("error")
  })
})
