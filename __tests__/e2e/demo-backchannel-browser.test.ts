// Issue 29, item 1, in a real browser: signed in to the demo through its local identity provider, the user signs out
// on the provider's own page; the provider tells the demo through back-channel logout and the demo session ends. The
// provider runs in a process of its own, as in `npm run demo`, so its fetch meets oidc-provider's real SSRF guard.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { describeWithBrowser, launchBrowser, watchPage, type LaunchedBrowser } from "../fixtures/browser"
import { startIdpProcess, type IdpProcess } from "../fixtures/local-idp-child"

jest.setTimeout(90_000)

describeWithBrowser("e2e: signing out at the demo's identity provider ends the demo session", () => {
  let server: Server
  let origin: string
  let idp: IdpProcess
  let browser: LaunchedBrowser
  const savedIdpPort = process.env.DEMO_IDP_PORT

  beforeAll(async () => {
    server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => resolve())
    })
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    idp = await startIdpProcess({
      port: 0,
      appOrigins: [origin],
      backchannelLogoutUri: `${origin}/auth/backchannel-logout/local-idp`,
    })
    process.env.DEMO_IDP_PORT = String(idp.port)
    const demo = await import("../../examples/express-basic/app")
    server.on("request", demo.app)
    browser = await launchBrowser()
  })

  afterAll(async () => {
    await browser?.close()
    await idp?.close()
    if (server) {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
    if (savedIdpPort === undefined) delete process.env.DEMO_IDP_PORT
    else process.env.DEMO_IDP_PORT = savedIdpPort
  })

  it("sign in with the provider, sign out on its own page, and the demo shows you signed out", async () => {
    const page = await browser.context.newPage()
    const watch = await watchPage(page)
    try {
      await page.goto(`${origin}/`)
      await Promise.all([
        page.waitForURL((u) => u.pathname === "/auth/signin"),
        page.getByRole("link", { name: "Sign in", exact: true }).click(),
      ])
      await Promise.all([
        page.waitForURL((u) => u.origin === idp.issuer && u.pathname.startsWith("/interaction/")),
        page.getByRole("button", { name: "Sign in with the local identity provider" }).click(),
      ])
      await page.locator('input[name="login"]').fill("ida")
      await page.locator('input[name="password"]').fill("anything")
      await page.getByRole("button", { name: "Sign-in" }).click()
      await page.getByRole("button", { name: "Continue" }).waitFor()
      await Promise.all([page.waitForURL(`${origin}/`), page.getByRole("button", { name: "Continue" }).click()])
      expect(await page.locator("main").innerText()).toContain("Signed in as")

      // The home page's link to the provider's own sign-out page; confirm there.
      await Promise.all([
        page.waitForURL((u) => u.origin === idp.issuer && u.pathname.startsWith("/session/end")),
        page.locator(`a[href="${idp.issuer}/session/end"]`).click(),
      ])
      expect(await page.getByRole("heading").innerText()).toBe("End your session here?")
      await page.getByRole("button", { name: "Yes, sign me out" }).click()
      await page.getByRole("heading", { name: "Signed out" }).waitFor()

      // Back at the demo: the session that came from the provider is gone.
      await Promise.all([page.waitForURL(`${origin}/`), page.getByRole("link", { name: "Back to the demo" }).click()])
      expect(await page.locator("main").innerText()).toContain("You are not signed in.")
      expect(idp.stderr()).not.toContain("could not tell the demo")
      expect(idp.stderr()).not.toContain("failed to setup SSRF protection")
      expect(watch.pageErrors).toEqual([])
    } finally {
      await page.close()
    }
  })
})
