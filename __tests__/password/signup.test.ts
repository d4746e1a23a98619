// passwords.md section 14, P1, P2, P4, P9: sign-up through the page and JSON, verification, resend, the policy.
import type request from "supertest"
import { confirmFormOf } from "../fixtures/magic-link"
import { linkParams, passwordApp, seedUser, SESSION_COOKIE, type PasswordApp } from "./harness"

let app: PasswordApp
beforeEach(async () => {
  app = await passwordApp()
})
afterEach(async () => app.close())

/** The hidden inputs and the action of the first POST form whose action ends with `path`. */
function formOf(html: string, path: string): { action: string; inputs: string } {
  for (const match of html.matchAll(/<form action="([^"]*)" method="post">([\s\S]*?)<\/form>/g)) {
    if (match[1]!.endsWith(path)) return { action: match[1]!, inputs: match[2]! }
  }
  throw new Error(`no form to ${path}`)
}

describe("P1 sign-up through the built-in page, then the verification link", () => {
  it("answers verify-request without a session, mails one link, and the confirmed link signs in", async () => {
    const browser = app.browser()
    const page = await browser.get("/auth/signup")
    expect(page.status).toBe(200)
    const form = formOf(page.text, "/auth/signup")
    expect(form.inputs).toMatch(/name="password" type="password" autocomplete="new-password"/)
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(form.inputs)![1]!
    const signUp = await browser.form("/auth/signup", {
      csrfToken,
      email: "ada@example.test",
      password: "correct horse",
    })
    expect(signUp.status).toBe(302)
    expect(signUp.headers.location).toBe(`${browser.origin}/auth/verify-request?provider=password&type=signup`)
    expect(browser.jar[SESSION_COOKIE]).toBeUndefined()

    await app.waitForMail("verify", 1)
    expect(app.mail.verify).toHaveLength(1)
    const mailed = app.mail.verify[0]!
    expect(mailed.identifier).toBe("ada@example.test")
    expect(mailed.purpose).toBe("verify-email")
    const link = new URL(mailed.url)
    expect(link.pathname).toBe("/auth/verify-email")
    expect(linkParams(mailed.url).get("token")).toBe(mailed.token)
    expect(linkParams(mailed.url).get("email")).toBe("ada@example.test")
    expect(app.mail.exists).toHaveLength(0)

    // The link opens a confirmation page; nothing changes until its form is posted.
    const confirm = await browser.get(`${link.pathname}${link.search}`)
    expect(confirm.status).toBe(200)
    expect(confirm.headers["referrer-policy"]).toBe("no-referrer")
    expect((await app.adapter.getUserByEmail("ada@example.test"))?.emailVerified).toBeNull()
    const { fields } = confirmFormOf(confirm.text)
    const verified = await browser.form("/auth/verify-email", fields)
    expect(verified.status).toBe(302)
    expect(verified.headers.location).toBe(browser.origin)
    expect((await browser.session())?.user?.email).toBe("ada@example.test")
    expect(app.events.createUser).toHaveBeenCalledTimes(1)
    expect(app.events.emailVerified).toHaveBeenCalledTimes(1)
    expect((await app.adapter.getUserByEmail("ada@example.test"))?.emailVerified).toBeInstanceOf(Date)

    // Sign out, then the sign-in page's password form signs in.
    await browser.form("/auth/signout", {})
    expect(await browser.session()).toBeNull()
    const signInPage = await browser.get("/auth/signin")
    const signInForm = formOf(signInPage.text, "/auth/callback/password")
    expect(signInForm.inputs).toMatch(/autocomplete="current-password"/)
    const signedIn = await browser.signIn("ada@example.test", "correct horse")
    expect(signedIn.status).toBe(302)
    expect((await browser.session())?.user?.email).toBe("ada@example.test")
  })
})

describe("P2 sign-in before verification, a wrong password, and resend", () => {
  it("reveals EmailNotVerified only to the right password; the resent link verifies and signs in", async () => {
    await seedUser(app, "bea@example.test", "bea's password", { verified: false })
    const browser = app.browser()
    const right = await browser.signIn("bea@example.test", "bea's password")
    expect(right.status).toBe(302)
    expect(right.headers.location).toBe(`${browser.origin}/auth/signin?error=EmailNotVerified`)
    expect(browser.jar[SESSION_COOKIE]).toBeUndefined()
    // The page the answer leads to refills the address (never the password) in both forms, once.
    const refilled = await browser.get("/auth/signin?error=EmailNotVerified")
    expect(refilled.text).toContain('<input type="hidden" name="email" value="bea@example.test">')
    expect(refilled.text).toMatch(
      /id="input-email-for-password-provider" autocomplete="username" required value="bea@example.test"/,
    )
    expect(refilled.text).not.toContain("bea&#39;s password")
    expect((await browser.get("/auth/signin?error=EmailNotVerified")).text).not.toContain('value="bea@example.test"')
    const wrong = await browser.signIn("bea@example.test", "not bea's password")
    expect(wrong.headers.location).toBe(`${browser.origin}/auth/signin?error=CredentialsSignin&code=credentials`)

    await browser.signIn("bea@example.test", "bea's password")
    const page = await browser.get("/auth/signin?error=EmailNotVerified")
    expect(page.text).toContain("Confirm your email address first.")
    expect(page.text).toContain("/auth/resend-verification")

    const resend = await browser.form("/auth/resend-verification", { email: "bea@example.test" })
    expect(resend.status).toBe(302)
    expect(resend.headers.location).toBe(`${browser.origin}/auth/verify-request?provider=password&type=verify`)
    await app.waitForMail("verify", 2)
    expect(app.mail.verify).toHaveLength(2)
    const link = new URL(app.mail.verify[1]!.url)
    const confirm = await browser.get(`${link.pathname}${link.search}`)
    const verified = await browser.form("/auth/verify-email", confirmFormOf(confirm.text).fields)
    expect(verified.status).toBe(302)
    expect((await browser.session())?.user?.email).toBe("bea@example.test")
  })
})

/** The parts of an answer that must not differ between a known and an unknown address (clarification 2). */
function shapeOf(response: request.Response, origin: string) {
  const headers = { ...response.headers }
  for (const name of ["date", "set-cookie", "connection", "keep-alive"]) delete headers[name]
  const cookies = ((response.headers["set-cookie"] as unknown as string[] | undefined) ?? []).map((line) =>
    line
      .split(";")
      .map((part, i) => (i === 0 ? part.split("=")[0] : part.trim()))
      .join(";"),
  )
  return { status: response.status, headers, body: response.text, cookies, origin }
}

describe("P4 sign-up with a new address vs an existing verified one", () => {
  it.each([
    ["form", false],
    ["JSON", true],
  ])("%s: identical answers; the owner is told, nothing is written", async (_mode, json) => {
    await seedUser(app, "cy@example.test", "cy's old password")
    const before = await app.adapter.getPasswordAccount((await app.adapter.getUserByEmail("cy@example.test"))!.id)
    const verifyMails = app.mail.verify.length
    const browser = app.browser()
    const send = (email: string) =>
      json
        ? browser.json("/auth/signup", { email, password: "a new password" })
        : browser.form("/auth/signup", { email, password: "a new password" })
    const fresh = await send("new@example.test")
    const existing = await send("cy@example.test")
    const again = await send("cy@example.test")
    expect(shapeOf(existing, browser.origin)).toEqual(shapeOf(fresh, browser.origin))
    expect(shapeOf(again, browser.origin)).toEqual(shapeOf(fresh, browser.origin))
    if (json) expect(fresh.body).toEqual({ ok: true })
    await app.waitForMail("exists", 2)
    await app.waitForMail("verify", verifyMails + 1)
    expect(app.mail.verify).toHaveLength(verifyMails + 1)
    expect(app.mail.verify.at(-1)!.identifier).toBe("new@example.test")
    expect(app.mail.exists).toHaveLength(2)
    const cy = await app.adapter.getUserByEmail("cy@example.test")
    for (const exists of app.mail.exists) {
      expect(exists.identifier).toBe("cy@example.test")
      expect(exists.user.id).toBe(cy!.id)
      expect(exists.resetUrl).toBe(`${browser.origin}/auth/forgot-password`)
    }
    expect(await app.adapter.getPasswordAccount(cy!.id)).toEqual(before)
  })
})

describe("P9 the policy on a JSON sign-up", () => {
  const signUp = (email: string, password: string) => app.browser().json("/auth/signup", { email, password })

  it("refuses 7 and 129 code points, accepts 8 and 128, counts after NFKC", async () => {
    const short = await signUp("p1@example.test", "1234567")
    expect(short.status).toBe(400)
    expect(short.body).toEqual({ error: "PasswordPolicy", code: "too_short" })
    expect(await app.adapter.getUserByEmail("p1@example.test")).toBeNull()
    expect((await signUp("p2@example.test", "x".repeat(129))).body).toEqual({
      error: "PasswordPolicy",
      code: "too_long",
    })
    expect((await signUp("p3@example.test", "12345678")).status).toBe(200)
    expect((await signUp("p4@example.test", "y".repeat(128))).status).toBe(200)
    // Six letters and the ligature ﬀ: 7 code points typed, 8 after NFKC.
    expect((await signUp("p5@example.test", "abcdef\uFB00")).status).toBe(200)
    expect((await signUp("p6@example.test", "😀".repeat(128))).status).toBe(200)
    expect((await signUp("p7@example.test", "😀".repeat(129))).body.code).toBe("too_long")
    expect((await signUp("p8@example.test", "p8@example.test")).body).toEqual({
      error: "PasswordPolicy",
      code: "blocklisted",
    })
    expect((await signUp("p9@example.test", "")).body.code).toBe("missing")
    await app.waitForMail("verify", 4)
    expect(app.mail.verify.map((m) => m.identifier).sort()).toEqual([
      "p3@example.test",
      "p4@example.test",
      "p5@example.test",
      "p6@example.test",
    ])
  })

  it("fullwidth and decomposed forms sign in as their NFKC form", async () => {
    await seedUser(app, "fw@example.test", "ｈｕｎｔｅｒ２２ｘ")
    expect((await app.browser().signIn("fw@example.test", "hunter22x")).headers.location).not.toContain("error")
    await seedUser(app, "e@example.test", "caf\u00e9 au lait")
    expect((await app.browser().signIn("e@example.test", "cafe\u0301 au lait")).headers.location).not.toContain("error")
  })

  it("a form sign-up with 7 characters goes back to the page with the code", async () => {
    const browser = app.browser()
    const response = await browser.form("/auth/signup", { email: "f@example.test", password: "1234567" })
    expect(response.status).toBe(302)
    expect(response.headers.location).toBe(`${browser.origin}/auth/signup?error=PasswordPolicy&code=too_short`)
    const page = await browser.get(
      new URL(response.headers.location!).pathname + new URL(response.headers.location!).search,
    )
    expect(page.text).toContain("Use at least 8 characters.")
  })
})

describe("section 1.1 switches", () => {
  it("verification off with autoSignIn: a new account is signed in; an existing address is told to check its email", async () => {
    await app.close()
    app = await passwordApp({ password: { requireEmailVerification: false } })
    const browser = app.browser()
    const created = await browser.form("/auth/signup", { email: "auto@example.test", password: "auto password 1" })
    expect(created.headers.location).toBe(browser.origin)
    expect((await browser.session())?.user?.email).toBe("auto@example.test")
    const again = await app.browser().form("/auth/signup", { email: "auto@example.test", password: "auto password 2" })
    expect(again.headers.location).toContain("/auth/verify-request?provider=password&type=signup")
    expect(app.mail.verify).toHaveLength(0)
  })

  it("confirm: false verifies on the GET; signIn: false lands on the sign-in page with verified=1", async () => {
    await app.close()
    app = await passwordApp({ password: { emailVerification: { confirm: false, signIn: false } } })
    const browser = app.browser()
    await browser.form("/auth/signup", { email: "get@example.test", password: "get password 1" })
    await app.waitForMail("verify", 1)
    const link = new URL(app.mail.verify[0]!.url)
    const opened = await browser.get(`${link.pathname}${link.search}`)
    expect(opened.status).toBe(302)
    expect(opened.headers.location).toBe(`${browser.origin}/auth/signin?verified=1`)
    expect(await browser.session()).toBeNull()
    expect((await app.adapter.getUserByEmail("get@example.test"))?.emailVerified).toBeInstanceOf(Date)
    expect((await browser.get(`${link.pathname}${link.search}`)).headers.location).toContain("error=Verification")
  })
})
