// The second-factor page in a real browser (Debian chromium through playwright-core): a credentials sign-in of a
// TOTP user lands on "Two-step verification"; the code form (autofill attributes, no script, the built-in CSP) and
// the backup-code form inside <details> both submit as plain HTML forms and sign in.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import type { Page } from "playwright-core"
import { Gatehouse } from "../../lib"
import Credentials from "../../lib/providers/credentials"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { describeWithBrowser, launchBrowser, watchPage, type LaunchedBrowser } from "../fixtures/browser"
import { totpCode as totp } from "../fixtures/totp"

jest.setTimeout(60_000)

describeWithBrowser("e2e: the two-factor page in a real browser", () => {
  let server: Server
  let origin: string
  let browser: LaunchedBrowser
  let secret = ""
  let backupCodes: string[] = []

  beforeAll(async () => {
    const gatehouse = Gatehouse({
      secret: "two-factor-browser-secret-0123456789abcdef",
      trustHost: true,
      adapter: MemoryAdapter(),
      session: { strategy: "jwt" },
      twoFactor: { issuer: "Browser" },
      logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
      providers: [
        Credentials({
          credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
          authorize: (c) =>
            c.username === "alice" && c.password === "wonderland"
              ? { id: "user-alice", name: "Alice", email: "alice@example.test" }
              : null,
        }),
      ],
    })
    const app = express()
    app.use(express.json())
    app.use("/auth", gatehouse.handlers)
    app.get("/home", (req, res, next) => gatehouse.auth(req, res).then((s) => res.json(s), next))
    app.post("/enrol", async (req, res, next) => {
      try {
        const started = await gatehouse.enableTotp(req, res)
        const { backupCodes: codes } = await gatehouse.verifyTotpEnrolment(req, res, { code: totp(started.secret) })
        res.json({ secret: started.secret, backupCodes: codes })
      } catch (error) {
        next(error)
      }
    })
    server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  async function signInWithPassword(page: Page): Promise<void> {
    await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/home`)}`)
    await page.fill('input[name="username"]', "alice")
    await page.fill('input[name="password"]', "wonderland")
    await Promise.all([page.waitForNavigation(), page.click('button:has-text("Sign in with Credentials")')])
  }

  it("enrols through the app, then signs in with the TOTP form and, after a sign-out, with a backup code", async () => {
    const page = await browser.context.newPage()
    const watch = await watchPage(page)
    // Enrol: the first sign-in has no second step yet.
    await signInWithPassword(page)
    expect(new URL(page.url()).pathname).toBe("/home")
    const enrolled = await page.evaluate(async () => (await fetch("/enrol", { method: "POST" })).json())
    secret = enrolled.secret
    backupCodes = enrolled.backupCodes
    expect(backupCodes).toHaveLength(10)
    await browser.context.clearCookies()

    await signInWithPassword(page)
    expect(new URL(page.url()).pathname).toBe("/auth/two-factor")
    expect(await page.title()).toBe("Two-step verification")
    const code = page.locator('input[name="code"]')
    expect(await code.getAttribute("autocomplete")).toBe("one-time-code")
    expect(await code.getAttribute("inputmode")).toBe("numeric")
    expect(await page.locator('input[name="backupCode"]').isVisible()).toBe(false)
    expect(await page.locator("script").count()).toBe(0)
    await code.fill(totp(secret, 1))
    await page.locator('input[name="trustDevice"]').first().check()
    await Promise.all([page.waitForNavigation(), page.click('button:has-text("Verify")')])
    expect(new URL(page.url()).pathname).toBe("/home")
    expect(await page.textContent("body")).toContain("alice@example.test")
    const trust = (await browser.context.cookies()).find((c) => c.name === "gatehouse.two-factor-trust")
    expect(trust?.httpOnly).toBe(true)

    await browser.context.clearCookies()
    await signInWithPassword(page)
    expect(new URL(page.url()).pathname).toBe("/auth/two-factor")
    await page.click("summary")
    await page.fill('input[name="backupCode"]', backupCodes[0]!.toUpperCase())
    await Promise.all([page.waitForNavigation(), page.locator("details button").click()])
    expect(new URL(page.url()).pathname).toBe("/home")
    expect(await page.textContent("body")).toContain("alice@example.test")

    // A wrong code shows the error on the page.
    await browser.context.clearCookies()
    await signInWithPassword(page)
    await page.fill('input[name="code"]', "000000" === totp(secret) ? "111111" : "000000")
    await Promise.all([page.waitForNavigation(), page.click('button:has-text("Verify")')])
    expect(page.url()).toBe(`${origin}/auth/two-factor?error=TwoFactorInvalid`)
    expect(await page.textContent(".error")).toBe("That code didn't work. Check it and try again.")
    expect(watch.cspViolations).toEqual([])
    expect(watch.pageErrors).toEqual([])
    await page.close()
  })
})
