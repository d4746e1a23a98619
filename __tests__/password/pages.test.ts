// passwords.md section 14, P20: the built-in pages (sign-in form, sign-up, forgot, reset from a real link, the
// verification confirmation), then the sign-up, verification, sign-in and reset in Chromium under the pages' CSP.
import type { Page } from "playwright-core"
import { describeWithBrowser, launchBrowser, watchPage, type LaunchedBrowser } from "../fixtures/browser"
import { passwordApp, seedUser, SESSION_COOKIE, type PasswordApp } from "./harness"

jest.setTimeout(60_000)

let app: PasswordApp
afterEach(async () => app?.close())

describe("P20 pages", () => {
  it("render the forms the spec names, with their autocomplete hints and headers", async () => {
    app = await passwordApp()
    const browser = app.browser()
    const signIn = await browser.get("/auth/signin?callbackUrl=%2Fdashboard")
    expect(signIn.text).toMatch(new RegExp(`<form action="${browser.origin}/auth/callback/password" method="post">`))
    expect(signIn.text).toMatch(/name="email" id="input-email-for-password-provider" autocomplete="username" required/)
    expect(signIn.text).toMatch(/type="password" name="password" [^>]*autocomplete="current-password" required/)
    expect(signIn.text).toMatch(/name="csrfToken" value="[^"]+"/)
    expect(signIn.text).toContain(`href="${browser.origin}/auth/forgot-password?callbackUrl=`)
    expect(signIn.text).toContain(`href="${browser.origin}/auth/signup?callbackUrl=`)
    expect((await browser.get("/auth/signin?reset=1")).text).toContain("Your password was changed.")
    expect((await browser.get("/auth/signin?verified=1")).text).toContain("Your email address is confirmed.")
    expect((await browser.get("/auth/signin?error=Verification")).text).toContain(
      "This link is invalid or has expired.",
    )

    const signUp = await browser.get("/auth/signup")
    expect(signUp.text).toMatch(/name="password" type="password" autocomplete="new-password" required minlength="8"/)
    expect(signUp.text).toContain("At least 8 characters")
    expect(signUp.headers["cache-control"]).toBe("no-store")
    expect(signUp.headers["content-security-policy"]).toContain("default-src 'none'")

    const forgot = await browser.get("/auth/forgot-password")
    expect(forgot.text).toContain(`<form action="${browser.origin}/auth/forgot-password" method="post">`)

    await seedUser(app, "ada@example.test", "ada password 1")
    await browser.form("/auth/forgot-password", { email: "ada@example.test" })
    await app.waitForMail("reset", 1)
    const link = new URL(app.mail.reset[0]!.url)
    const reset = await browser.get(`${link.pathname}${link.search}`)
    expect(reset.status).toBe(200)
    expect(reset.headers["referrer-policy"]).toBe("no-referrer")
    expect(reset.text).toContain(`<input type="hidden" name="token" value="${link.searchParams.get("token")}">`)
    expect(reset.text).toContain('<input type="hidden" name="email" value="ada@example.test">')
    expect(reset.text).toMatch(/name="password" type="password" autocomplete="new-password"/)
    expect(reset.text).toMatch(/name="username" autocomplete="username" value="ada@example.test" hidden/)
    // Opening the page changed nothing: the link still works.
    const used = await browser.form("/auth/reset-password", {
      token: link.searchParams.get("token")!,
      email: "ada@example.test",
      password: "ada password 2",
    })
    expect(used.headers.location).toBe(`${browser.origin}/auth/signin?reset=1`)

    const request = await browser.get("/auth/verify-request?provider=password&type=reset")
    expect(request.text).toContain("If an account exists for this address, we sent a link to reset the password.")
    expect(request.text).toContain("30 minutes")
  })

  it("escape what the query carries", async () => {
    app = await passwordApp()
    const hostile = encodeURIComponent('"><script>alert(1)</script>')
    const page = await app.browser().get(`/auth/reset-password?token=${hostile}&email=${hostile}&error=${hostile}`)
    expect(page.text).not.toContain("<script>alert(1)")
  })
})

describeWithBrowser("P20 in Chromium: sign up, confirm, sign in, forgot, reset", () => {
  let browser: LaunchedBrowser
  beforeAll(async () => {
    browser = await launchBrowser()
  })
  afterAll(async () => browser?.close())

  async function submit(page: Page, selector: string) {
    await Promise.all([page.waitForNavigation(), page.click(selector)])
  }

  it("works with plain forms under the built-in CSP", async () => {
    app = await passwordApp()
    const origin = app.browser().origin
    const page = await browser.context.newPage()
    const watch = await watchPage(page)

    await page.goto(`${origin}/auth/signin`)
    await submit(page, 'a[href*="/auth/signup"]')
    expect(new URL(page.url()).pathname).toBe("/auth/signup")
    await page.fill("#input-email", "chromium@example.test")
    await page.fill("#input-password", "chromium password 1")
    await submit(page, "form button[type=submit]")
    expect(new URL(page.url()).pathname).toBe("/auth/verify-request")
    expect(await page.textContent("main")).toContain("Check your email to finish creating your account.")

    await app.waitForMail("verify", 1)
    await page.goto(app.mail.verify[0]!.url)
    expect(await page.textContent("h1")).toBe("Confirm your email address")
    await submit(page, "form button[type=submit]")
    const cookies = await browser.context.cookies(origin)
    expect(cookies.some((c) => c.name === SESSION_COOKIE)).toBe(true)
    await browser.context.clearCookies()

    await page.goto(`${origin}/auth/signin`)
    await submit(page, 'a[href*="/auth/forgot-password"]')
    await page.fill("#input-email", "chromium@example.test")
    await submit(page, "form button[type=submit]")
    await app.waitForMail("reset", 1)
    await page.goto(app.mail.reset[0]!.url)
    await page.fill("#input-password", "chromium password 2")
    await submit(page, "form button[type=submit]")
    expect(page.url()).toBe(`${origin}/auth/signin?reset=1`)
    expect(await page.textContent("main")).toContain("Your password was changed.")

    await page.fill("#input-email-for-password-provider", "chromium@example.test")
    await page.fill("#input-password-for-password-provider", "chromium password 2")
    await submit(page, `form[action="${origin}/auth/callback/password"] button[type=submit]`)
    const after = await browser.context.cookies(origin)
    expect(after.some((c) => c.name === SESSION_COOKIE)).toBe(true)
    expect(watch.cspViolations).toEqual([])
    expect(watch.pageErrors).toEqual([])
    await page.close()
  })
})
