// The demo app in a real browser (Debian chromium through playwright-core): credentials, the local OpenID provider and
// email sign-in, sign-out, and hostile query values, all through the built-in pages under their real CSP.
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import path from "node:path"
import type { Page } from "playwright-core"
import type { DevMailbox } from "../../examples/express-basic/mailbox"
import { startLocalIdp, type StartedLocalIdp } from "../../examples/express-basic/local-idp"
import { pageHeaders } from "../../lib/core/kernel/pages"
import {
  describeWithBrowser,
  launchBrowser,
  watchPage,
  type LaunchedBrowser,
  type PageWatch,
} from "../fixtures/browser"

jest.setTimeout(60_000)

/** WCAG 2 contrast ratio of two computed `rgb(r, g, b)` colours. */
function contrastRatio(a: string, b: string): number {
  const luminance = (color: string) => {
    const channels = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((c) => {
      const v = Number(c) / 255
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
    })
    if (channels.length !== 3) throw new Error(`not an rgb() colour: ${color}`)
    const [r, g, bl] = channels as [number, number, number]
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl
  }
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100
}

const SESSION_COOKIE = "authjs.session-token"
const BUILT_IN_CSP = pageHeaders["Content-Security-Policy"]
/** The built-in CSP, or (sign-in page with a passkey form) the same plus one script nonce and same-origin fetch. */
const builtInCsp = (csp: string | undefined): string | undefined =>
  csp?.replace(/; script-src 'nonce-[A-Za-z0-9+/=]+'; connect-src 'self'$/, "")

describeWithBrowser("e2e: the demo app in a real browser", () => {
  let server: Server
  let origin: string
  let idp: StartedLocalIdp
  let browser: LaunchedBrowser
  let demoLogin: { username: string; password: string }
  let mailbox: DevMailbox
  const savedIdpPort = process.env.DEMO_IDP_PORT

  let page: Page
  let watch: PageWatch

  beforeAll(async () => {
    // The app's port first: the IdP registers `<origin>/auth/callback/local-idp` for it.
    server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => resolve())
    })
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    idp = await startLocalIdp({ port: 0, appOrigins: [origin] })
    // app.ts reads DEMO_IDP_PORT when it is imported, as `npm run demo` does.
    process.env.DEMO_IDP_PORT = String(idp.port)
    const demo = await import("../../examples/express-basic/app")
    ;({ demoLogin, mailbox } = demo)
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

  beforeEach(async () => {
    browser.blockedRequests.length = 0
    await browser.context.clearCookies()
    page = await browser.context.newPage()
    watch = await watchPage(page)
  })

  afterEach(async () => {
    await page.close()
    // Nothing the demo does needs the network (oidc-provider's dev pages import a web font, which is aborted).
    expect(browser.blockedRequests.filter((u) => !u.startsWith("https://fonts.googleapis.com/"))).toEqual([])
  })

  const url = (pathAndQuery: string) => `${origin}${pathAndQuery}`
  const bodyText = () => page.locator("body").innerText()

  /** Runs `action` and waits for the main frame to reach `target`; a failure says what the browser reported. */
  async function navigate(action: () => Promise<unknown>, target: string | RegExp | ((u: URL) => boolean)) {
    try {
      await Promise.all([page.waitForURL(target, { timeout: 15_000 }), action()])
    } catch (error) {
      const report = JSON.stringify(
        { at: page.url(), csp: watch.cspViolations, console: watch.consoleErrors, blocked: browser.blockedRequests },
        null,
        2,
      )
      throw new Error(`${(error as Error).message}\nbrowser report: ${report}`)
    }
  }

  /** The current page is a built-in page with this title, served under the built-in CSP, with no violation. */
  async function expectBuiltInPage(title: string) {
    expect(await page.title()).toBe(title)
    const document = watch.documents.at(-1)
    expect(document?.url).toBe(page.url())
    expect(builtInCsp(document?.csp)).toBe(BUILT_IN_CSP)
    expect(watch.cspViolations).toEqual([])
  }

  /** Every built-in (`/auth/…`) document of this test had the CSP; no violation, dialog or script error anywhere. */
  function expectCleanRun() {
    // Built-in pages are HTML; a JSON answer (400 for an invalid callbackUrl) is no page.
    const builtIn = watch.documents.filter(
      (d) => new URL(d.url).pathname.startsWith("/auth/") && d.contentType?.startsWith("text/html"),
    )
    expect(builtIn.length).toBeGreaterThan(0)
    for (const d of builtIn) expect({ url: d.url, csp: builtInCsp(d.csp) }).toEqual({ url: d.url, csp: BUILT_IN_CSP })
    expect(watch.cspViolations).toEqual([])
    expect(watch.dialogs).toEqual([])
    expect(watch.pageErrors).toEqual([])
  }

  /** Polls `condition` (the browser reports asynchronously) for up to five seconds. */
  async function until(condition: () => boolean) {
    for (const deadline = Date.now() + 5000; !condition() && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }

  async function sessionCookie() {
    return (await browser.context.cookies(origin)).find((c) => c.name === SESSION_COOKIE)
  }

  async function signInWithCredentials(username: string, password: string) {
    await page.getByLabel("Username").fill(username)
    // The demo account's own field: the Password provider's form has a "Password" field too.
    await page.locator("#input-password-for-credentials-provider").fill(password)
    await page.getByRole("button", { name: "Sign in with Demo account" }).click()
  }

  it("credentials: signs in from the home page, sees the protected page, signs out on the built-in page", async () => {
    await page.goto(url("/"))
    expect(await bodyText()).toContain("You are not signed in.")

    await navigate(
      () => page.getByRole("link", { name: "Sign in", exact: true }).click(),
      url("/auth/signin?callbackUrl=%2F"),
    )
    await expectBuiltInPage("Sign In")
    expect(await page.getByRole("button", { name: "Sign in with the local identity provider" }).count()).toBe(1)
    // Every button's label is readable on its background as the browser paints it (WCAG AA: 4.5), in both schemes.
    for (const colorScheme of ["dark", "light"] as const) {
      await page.emulateMedia({ colorScheme })
      const buttons = await page.locator("button").evaluateAll((elements) =>
        elements.map((b) => ({
          label: b.textContent,
          color: getComputedStyle(b).color,
          bg: getComputedStyle(b).backgroundColor,
        })),
      )
      // Demo account, local identity provider, email, password ("Sign in"), passkey.
      expect(buttons).toHaveLength(5)
      const unreadable = buttons
        .map(({ label, color, bg }) => ({ colorScheme, label, color, bg, ratio: contrastRatio(color, bg) }))
        .filter(({ ratio }) => ratio < 4.5)
      expect(unreadable).toEqual([])
    }

    // One screenshot of the sign-in page, checked to be a real PNG of the viewport.
    const shots = process.env.E2E_SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), "gatehouse-e2e-"))
    const shot = path.join(shots, "signin.png")
    await page.screenshot({ path: shot, fullPage: true })
    const png = readFileSync(shot)
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG")
    expect(png.readUInt32BE(16)).toBe(1000)
    if (process.env.E2E_SCREENSHOT_DIR) process.stderr.write(`sign-in page screenshot: ${shot}\n`)
    else rmSync(shots, { recursive: true, force: true })

    await navigate(() => signInWithCredentials(demoLogin.username, demoLogin.password), url("/"))
    expect(await bodyText()).toContain("Signed in as Demo User (demo@example.test).")
    const cookie = await sessionCookie()
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false, path: "/" })
    expect(cookie?.value).toMatch(/^[0-9a-f]{64}$/)

    await page.goto(url("/protected"))
    expect(page.url()).toBe(url("/protected"))
    expect(await bodyText()).toContain("Only signed-in users see this, Demo User.")

    await page.goto(url("/"))
    // The home page's link to the built-in sign-out page asks it to return to the demo's signed-out banner.
    await navigate(
      () => page.getByRole("link", { name: "sign-out page" }).click(),
      url("/auth/signout?callbackUrl=%2F%3FsignedOut%3D1"),
    )
    await expectBuiltInPage("Sign Out")
    expect(await bodyText()).toContain("Are you sure you want to sign out?")
    await navigate(() => page.getByRole("button", { name: "Sign out" }).click(), url("/?signedOut=1"))
    expect(await bodyText()).toContain("You have been signed out.")
    expect(await bodyText()).toContain("You are not signed in.")
    expect(await sessionCookie()).toBeUndefined()

    // Signed out for real: the protected page sends the browser to sign in again, and back to it afterwards.
    await navigate(
      () => page.goto(url("/protected")),
      (u) => u.pathname === "/auth/signin",
    )
    await expectBuiltInPage("Sign In")
    expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe(url("/protected"))
    await navigate(() => signInWithCredentials(demoLogin.username, demoLogin.password), url("/protected"))
    expect(await bodyText()).toContain("Only signed-in users see this, Demo User.")
    expectCleanRun()
  })

  it("credentials: a wrong password lands on the sign-in page with the CredentialsSignin message", async () => {
    await page.goto(url("/auth/signin"))
    await expectBuiltInPage("Sign In")
    await navigate(
      () => signInWithCredentials(demoLogin.username, "not-the-password"),
      url("/auth/signin?error=CredentialsSignin&code=credentials"),
    )
    await expectBuiltInPage("Sign In")
    await expect(page.getByRole("alert").innerText()).resolves.toBe(
      "Sign in failed. Check the details you provided are correct.",
    )
    expect(await sessionCookie()).toBeUndefined()
    await page.goto(url("/"))
    expect(await bodyText()).toContain("You are not signed in.")
    expectCleanRun()
  })

  it("OpenID Connect: the local identity provider's login and consent, then back signed in", async () => {
    await navigate(
      () => page.goto(url("/protected")),
      (u) => u.pathname === "/auth/signin",
    )
    await expectBuiltInPage("Sign In")
    await navigate(
      () => page.getByRole("button", { name: "Sign in with the local identity provider" }).click(),
      (u) => u.origin === idp.issuer && u.pathname.startsWith("/interaction/"),
    )
    // oidc-provider's dev login form: any login and password.
    await page.locator('input[name="login"]').fill("ada")
    await page.locator('input[name="password"]').fill("whatever")
    await page.getByRole("button", { name: "Sign-in" }).click()
    await page.getByRole("button", { name: "Continue" }).waitFor()
    await navigate(() => page.getByRole("button", { name: "Continue" }).click(), url("/protected"))
    expect(await bodyText()).toContain("Only signed-in users see this, ada.")

    await page.goto(url("/"))
    expect(await bodyText()).toContain("Signed in as ada (ada@example.test).")
    const cookies = await browser.context.cookies(origin)
    expect(cookies.map((c) => c.name).filter((name) => /state|nonce|pkce/.test(name))).toEqual([])
    expect(cookies.find((c) => c.name === SESSION_COOKIE)?.value).toMatch(/^[0-9a-f]{64}$/)
    expectCleanRun()
  })

  it("email: the verify-request page, the link in /dev/mailbox signs in, and works only once", async () => {
    await page.goto(url("/auth/signin"))
    await expectBuiltInPage("Sign In")
    await page.locator("#input-email-for-email-provider").fill("Browser.User@Example.test")
    // The demo's own "check your email" page (pages.verifyRequest) points to the dev mailbox.
    await navigate(
      () => page.getByRole("button", { name: "Sign in with Email" }).click(),
      url("/check-email?provider=email&type=email"),
    )
    expect(await page.title()).toBe("Check your email · Gatehouse demo")
    expect(await bodyText()).toContain("The link and the code are valid for 10 minutes")
    expect(mailbox.messages()[0]?.to).toBe("browser.user@example.test")

    await navigate(() => page.getByRole("link", { name: "Open the dev mailbox" }).click(), url("/dev/mailbox"))
    const link = page.getByRole("link", { name: "Sign in as browser.user@example.test" }).first()
    const href = await link.getAttribute("href")
    expect(href).toBe(mailbox.messages()[0]?.url)
    expect(href?.startsWith(url("/auth/callback/email?"))).toBe(true)
    // ML-5: opening the link only shows the confirmation page (a mail scanner's GET signs nobody in) ...
    await navigate(
      () => link.click(),
      (u) => u.pathname === "/auth/callback/email",
    )
    await expectBuiltInPage("Confirm sign in")
    expect(await bodyText()).toContain("Continue as browser.user@example.test?")
    expect(await sessionCookie()).toBeUndefined()
    // ... and its one button signs in.
    await navigate(() => page.getByRole("button", { name: "Sign in" }).click(), url("/"))
    // An email-only user (no name) is greeted by the address.
    expect(await bodyText()).toContain("Signed in as browser.user@example.test.")
    expect((await sessionCookie())?.value).toMatch(/^[0-9a-f]{64}$/)

    // The same link again: at once the built-in error page, 403, saying plainly that it was used (no button to try).
    await page.context().clearCookies()
    await navigate(
      () => page.goto(href as string),
      (u) => u.pathname === "/auth/callback/email",
    )
    await expectBuiltInPage("Error")
    expect(watch.documents.at(-1)?.status).toBe(403)
    expect(await page.getByRole("heading").innerText()).toBe("This link was already used")
    expect(await page.getByRole("button", { name: "Sign in" }).count()).toBe(0)
    expectCleanRun()
  })

  it("XSS: hostile error, callbackUrl and email values run no script on the built-in pages", async () => {
    const marker = () => page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)

    const scriptError = '<script>window.__xss=1;alert("error")</script>'
    await page.goto(url(`/auth/signin?error=${encodeURIComponent(scriptError)}`))
    await expectBuiltInPage("Sign In")
    await expect(page.getByRole("alert").innerText()).resolves.toBe("Unable to sign in.")
    // The one script is the passkey client, under the response's nonce; nothing injected.
    expect(await page.locator("script:not([nonce])").count()).toBe(0)
    expect(await page.locator("script").count()).toBe(1)
    expect(await marker()).toBeUndefined()

    // A callbackUrl that tries to break out of the hidden input's attribute is refused before any page renders:
    // 400 JSON (RD-12), no HTML at all.
    const breakout = '"><script>window.__xss=2;alert("callbackUrl")</script>'
    for (const callbackUrl of [breakout, "javascript:window.__xss=3;alert(3)"]) {
      const answer = await page.goto(url(`/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`))
      expect(answer?.status()).toBe(400)
      expect(answer?.headers()["content-type"]).toMatch(/^application\/json/)
      expect(await page.locator("script").count()).toBe(0)
      expect(await marker()).toBeUndefined()
    }

    const imgEmail = '"><img src=x onerror="window.__xss=4;alert(4)">'
    await page.goto(url(`/auth/signin?email=${encodeURIComponent(imgEmail)}`))
    await expectBuiltInPage("Sign In")
    expect(await page.locator("#input-email-for-email-provider").inputValue()).toBe(imgEmail)
    expect(await page.locator("img").count()).toBe(0)
    expect(await marker()).toBeUndefined()

    const imgError = '<img src=x onerror="window.__xss=5;alert(5)">'
    await page.goto(url(`/auth/error?error=${encodeURIComponent(imgError)}`))
    await expectBuiltInPage("Error")
    expect(watch.documents.at(-1)?.status).toBe(200)
    expect(await page.locator("img").count()).toBe(0)
    expect(await bodyText()).not.toContain("onerror")
    expect(await marker()).toBeUndefined()

    // An off-site callbackUrl is replaced by the site's origin: signing in lands on the home page, not elsewhere.
    await page.goto(url(`/auth/signin?callbackUrl=${encodeURIComponent("https://evil.example/steal")}`))
    await expectBuiltInPage("Sign In")
    expect(await page.locator('input[name="callbackUrl"]').first().inputValue()).toBe(origin)
    await navigate(() => signInWithCredentials(demoLogin.username, demoLogin.password), url("/"))
    expect(await bodyText()).toContain("Signed in as Demo User")
    expect(browser.blockedRequests.filter((u) => u.includes("evil.example"))).toEqual([])

    expect(watch.dialogs).toEqual([])
    expectCleanRun()
  })

  it("passkeys: signed in, adds a passkey on the home page, signs out, signs back in through conditional UI", async () => {
    // WebAuthn needs a domain as relying party id: the same server, reached as localhost (a secure context too).
    const local = (pathAndQuery: string) => `http://localhost:${new URL(origin).port}${pathAndQuery}`
    const cdp = await browser.context.newCDPSession(page)
    await cdp.send("WebAuthn.enable", { enableUI: false })
    const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        ctap2Version: "ctap2_1",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    })
    try {
      await page.goto(local("/auth/signin"))
      await navigate(() => signInWithCredentials(demoLogin.username, demoLogin.password), local("/"))
      await page.getByRole("button", { name: "Add a passkey" }).click()
      await page.waitForFunction(() => document.getElementById("passkey-status")?.textContent !== "")
      expect(await page.locator("#passkey-status").innerText()).toBe(
        "Passkey added: sign out and sign back in with it.",
      )
      const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId })
      expect(credentials).toHaveLength(1)

      await navigate(() => page.getByRole("button", { name: "Sign out" }).click(), local("/?signedOut=1"))
      expect(await bodyText()).toContain("You are not signed in.")

      // The sign-in page starts conditional UI on load; the virtual authenticator offers the one passkey.
      await page.goto(local(`/auth/signin?callbackUrl=${encodeURIComponent(local("/"))}`), { waitUntil: "commit" })
      await page.waitForURL(local("/"))
      expect(await bodyText()).toContain("Signed in as Demo User (demo@example.test).")
      expect(watch.cspViolations).toEqual([])
      expect(watch.pageErrors).toEqual([])
    } finally {
      await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId })
    }
  })

  it("the page watch itself: it sees a blocked inline script, a form-action redirect and a dialog", async () => {
    // Probes served by the browser's request interception on the app's origin (the app itself is not involved).
    const probe = url("/__csp-probe")
    const elsewhere = `http://localhost:${idp.port}/__elsewhere`
    await page.route(`${origin}/__*`, (route) => {
      const { pathname } = new URL(route.request().url())
      if (pathname === "/__csp-probe") {
        return route.fulfill({
          contentType: "text/html",
          headers: { "Content-Security-Policy": "default-src 'none'; form-action 'self'" },
          body: '<script>alert("blocked")</script><form method="post" action="/__redirect"><button>Go</button></form>',
        })
      }
      if (pathname === "/__redirect") return route.fulfill({ status: 302, headers: { Location: elsewhere } })
      return route.fulfill({ contentType: "text/html", body: '<script>alert("ran")</script>' })
    })
    await page.goto(probe)
    // Reported twice: the console message and the securitypolicyviolation event.
    expect(watch.cspViolations).toEqual([
      { pageUrl: probe, text: expect.stringMatching(/^Executing inline script violates .*default-src 'none'/) },
      { pageUrl: probe, text: "script-src-elem inline" },
    ])
    expect(watch.dialogs).toEqual([])
    watch.cspViolations.length = 0
    // The form targets this origin, which answers with a redirect elsewhere: Chromium checks form-action there too.
    await page.getByRole("button", { name: "Go" }).click()
    await until(() => watch.cspViolations.length >= 2)
    expect(watch.cspViolations).toEqual([
      { pageUrl: probe, text: expect.stringMatching(/^Sending form data to '.*\/__redirect' violates .*form-action/) },
      { pageUrl: probe, text: `form-action ${url("/__redirect")}` },
    ])
    expect(page.url()).toBe(probe)
    watch.cspViolations.length = 0
    await page.goto(url("/__no-csp"))
    expect(watch.dialogs).toEqual(["alert: ran"])
    expect(watch.cspViolations).toEqual([])
  })
})
