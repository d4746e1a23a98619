// The demo's two-factor sign-in and email codes in a real browser (Debian chromium through playwright-core): turn on
// an authenticator app on /account/two-factor, sign out, sign in again with a code; then sign in with the email code
// the dev mailbox shows, typed on the demo's "check your email" page.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Page } from "playwright-core"
import type { DevMailbox } from "../../examples/express-basic/mailbox"
import { startLocalIdp, type StartedLocalIdp } from "../../examples/express-basic/local-idp"
import {
  describeWithBrowser,
  launchBrowser,
  watchPage,
  type LaunchedBrowser,
  type PageWatch,
} from "../fixtures/browser"
import { totpCode as totp } from "../fixtures/totp"

jest.setTimeout(60_000)

describeWithBrowser("e2e: the demo's two-factor sign-in and email codes", () => {
  let server: Server
  let origin: string
  let idp: StartedLocalIdp
  let browser: LaunchedBrowser
  let mailbox: DevMailbox
  let demoLogin: { username: string; password: string }
  let page: Page
  let watch: PageWatch
  const savedIdpPort = process.env.DEMO_IDP_PORT

  beforeAll(async () => {
    server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    idp = await startLocalIdp({ port: 0, appOrigins: [origin] })
    process.env.DEMO_IDP_PORT = String(idp.port)
    const demo = await import("../../examples/express-basic/app")
    ;({ demoLogin, mailbox } = demo)
    server.on("request", demo.app)
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await idp?.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    if (savedIdpPort === undefined) delete process.env.DEMO_IDP_PORT
    else process.env.DEMO_IDP_PORT = savedIdpPort
  })
  beforeEach(async () => {
    await browser.context.clearCookies()
    page = await browser.context.newPage()
    watch = await watchPage(page)
  })
  afterEach(async () => {
    await page.close()
    expect(watch.cspViolations).toEqual([])
    expect(watch.pageErrors).toEqual([])
  })

  const url = (p: string) => `${origin}${p}`
  const bodyText = () => page.locator("body").innerText()
  const go = (action: () => Promise<unknown>, target: string | ((u: URL) => boolean)) =>
    Promise.all([page.waitForURL(target, { timeout: 15_000 }), action()])

  async function signInHere(): Promise<void> {
    await page.goto(url("/"))
    await page.fill("#login-username", demoLogin.username)
    await page.fill("#login-password", demoLogin.password)
    await go(
      () => page.getByRole("button", { name: "Sign in here" }).click(),
      (u) => u.pathname !== "/login",
    )
  }

  it("turns on TOTP on the account page, signs out, and signs back in with a code", async () => {
    await signInHere()
    expect(await bodyText()).toContain("Only signed-in users see this, Demo User.")
    await page.goto(url("/account/two-factor"))
    expect(await bodyText()).toContain("Two-factor sign-in is off.")
    await go(
      () => page.getByRole("button", { name: "Set up an authenticator app" }).click(),
      url("/account/two-factor/enable"),
    )
    expect(await page.locator(".qr svg").count()).toBe(1)
    const secret = (await page.locator("code.secret").innerText()).trim()
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    await page.fill("#code", totp(secret))
    await go(() => page.getByRole("button", { name: "Turn on" }).click(), url("/account/two-factor/confirm"))
    expect(await bodyText()).toContain("Two-factor sign-in is on.")
    expect(await page.locator("code.backup-code").count()).toBe(10)

    await go(() => page.getByRole("link", { name: "Home" }).first().click(), url("/"))
    await go(
      () => page.getByRole("button", { name: "Sign out" }).first().click(),
      (u) => u.search === "?signedOut=1",
    )
    await signInHere()
    expect(new URL(page.url()).pathname).toBe("/auth/two-factor")
    expect(await page.title()).toBe("Two-step verification")
    await page.fill('input[name="code"]', totp(secret, 1))
    await go(
      () => page.getByRole("button", { name: "Verify" }).first().click(),
      (u) => u.pathname === "/protected",
    )
    expect(await bodyText()).toContain("Only signed-in users see this, Demo User.")
  })

  it("signs in with the email code from the dev mailbox, typed on the check-email page", async () => {
    await page.goto(url("/auth/signin"))
    await page.locator("#input-email-for-email-provider").fill("code.user@example.test")
    await go(
      () => page.getByRole("button", { name: "Sign in with Email" }).click(),
      (u) => u.pathname === "/check-email",
    )
    await page.goto(url("/dev/mailbox"))
    const code = (await page.locator("strong.code").first().innerText()).trim()
    expect(code).toMatch(/^[0-9]{6}$/)
    expect(code).toBe(mailbox.messages()[0]?.code)
    await page.goBack()
    await page.fill("#email-code", code)
    await go(() => page.getByRole("button", { name: "Sign in with the code" }).click(), url("/"))
    expect(await bodyText()).toContain("Signed in as code.user@example.test.")
  })
})
