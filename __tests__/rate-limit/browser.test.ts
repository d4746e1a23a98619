// The built-in sign-in page in Chromium: a passkey click refused by `webauthn-options` reloads the page with
// `error=RateLimited&retry=<s>`, which shows "Too many attempts. Try again in N minutes.".
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import type { Page } from "playwright-core"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { Gatehouse } from "../../lib/express"
import Passkey from "../../lib/providers/passkey"
import {
  describeWithBrowser,
  launchBrowser,
  watchPage,
  type LaunchedBrowser,
  type PageWatch,
} from "../fixtures/browser"
import { SECRET } from "./harness"

jest.setTimeout(60_000)

describeWithBrowser("the sign-in page when the passkey options are rate limited", () => {
  let server: Server
  let origin: string
  let browser: LaunchedBrowser
  let page: Page
  let watch: PageWatch
  const optionsRequests: string[] = []

  beforeAll(async () => {
    server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://localhost:${(server.address() as AddressInfo).port}`
    const { handlers } = Gatehouse({
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      providers: [Passkey({ relyingParty: { id: "localhost", name: "Gatehouse rate limit", origin } })],
      // One client whatever address the browser connects from; two options requests per minute.
      rateLimit: { enabled: true, ip: () => "one-client", rules: { "webauthn-options": { limit: 2 } } },
    })
    const app = express()
    app.use((req, _res, next) => {
      if (req.path.startsWith("/auth/webauthn-options")) optionsRequests.push(req.originalUrl)
      next()
    })
    app.use("/auth", handlers)
    server.on("request", app)
    browser = await launchBrowser()
    page = await browser.context.newPage()
    watch = await watchPage(page)
  })
  afterAll(async () => {
    await browser?.close()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it("the click lands on the sign-in page with the wait in minutes", async () => {
    // Use up the window from outside the browser.
    for (let i = 0; i < 2; i += 1) {
      const response = await fetch(`${origin}/auth/webauthn-options/passkey?action=authenticate`)
      expect(response.status).toBe(200)
    }
    const refused = await fetch(`${origin}/auth/webauthn-options/passkey?action=authenticate`)
    expect(refused.status).toBe(429)

    await page.goto(`${origin}/auth/signin`)
    await Promise.all([
      page.waitForURL(/\/auth\/signin\?error=RateLimited&retry=\d+$/),
      page.getByRole("button", { name: "Sign in with Passkey" }).click(),
    ])
    const alert = page.getByRole("alert")
    await expect(alert.textContent()).resolves.toMatch(/^Too many attempts\. Try again in 1 minute\.$/)
    expect(optionsRequests.length).toBeGreaterThanOrEqual(4)
    expect(watch.cspViolations).toEqual([])
    expect(browser.blockedRequests).toEqual([])
  })
})
