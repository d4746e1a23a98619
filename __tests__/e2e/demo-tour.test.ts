// The demo's own pages in a real browser (Debian chromium through playwright-core): sign in, open "Your sessions",
// sign out other devices, sign out, see the banner; then every text of the demo's pages (home, sessions, mailbox,
// the local IdP's signed-out page) against its painted background, in light and dark mode (WCAG AA, 4.5:1).
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import path from "node:path"
import type { Page } from "playwright-core"
import type { DevMailbox } from "../../examples/express-basic/mailbox"
import { startLocalIdp, type StartedLocalIdp } from "../../examples/express-basic/local-idp"
import { demoCsp } from "../../examples/express-basic/pages"
import { describeWithBrowser, launchBrowser, watchPage, type LaunchedBrowser } from "../fixtures/browser"
import { openLinkOverHttp } from "../fixtures/magic-link"

jest.setTimeout(90_000)

/** WCAG 2 contrast ratio of two computed `rgb(r, g, b)` colours (opaque). */
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

interface PaintedText {
  text: string
  color: string
  background: string
}

/** Every element with its own visible text: its colour and the first opaque background behind it. */
function paintedTexts(page: Page): Promise<PaintedText[]> {
  return page.evaluate(() => {
    const out: { text: string; color: string; background: string }[] = []
    for (const element of Array.from(document.body.querySelectorAll("*"))) {
      const own = Array.from(element.childNodes)
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent ?? "")
        .join("")
        .trim()
      if (!own || (element as HTMLElement).offsetParent === null) continue
      let background = "rgba(0, 0, 0, 0)"
      for (let e: Element | null = element; e; e = e.parentElement) {
        const bg = getComputedStyle(e).backgroundColor
        if (!/rgba\(.*, 0\)$/.test(bg) && bg !== "transparent") {
          background = bg
          break
        }
      }
      out.push({ text: own.slice(0, 40), color: getComputedStyle(element).color, background })
    }
    return out
  })
}

describeWithBrowser("e2e: the demo's own pages (sessions, sign-out banner, mailbox) in a real browser", () => {
  let server: Server
  let origin: string
  let idp: StartedLocalIdp
  let browser: LaunchedBrowser
  let demoLogin: { username: string; password: string }
  let mailbox: DevMailbox
  const savedIdpPort = process.env.DEMO_IDP_PORT

  beforeAll(async () => {
    server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => resolve())
    })
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
    if (server) {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
    if (savedIdpPort === undefined) delete process.env.DEMO_IDP_PORT
    else process.env.DEMO_IDP_PORT = savedIdpPort
  })

  const url = (pathAndQuery: string) => `${origin}${pathAndQuery}`

  /** A credentials sign-in over plain HTTP (another "device"); returns its cookie header. */
  async function signInElsewhere(userAgent: string): Promise<string> {
    const csrf = await fetch(url("/auth/csrf"), { headers: { "user-agent": userAgent } })
    const csrfCookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0])
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const signedIn = await fetch(url("/auth/callback/credentials"), {
      method: "POST",
      redirect: "manual",
      headers: {
        "user-agent": userAgent,
        cookie: csrfCookie.join("; "),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrfToken, ...demoLogin }),
    })
    const session = signedIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0]!)
      .find((c) => c.startsWith("authjs.session-token="))
    expect(session).toBeDefined()
    return session!
  }

  const apiStatus = async (cookie: string) =>
    (await fetch(url("/api/me"), { headers: { cookie, accept: "application/json" } })).status

  it("sign in, open Your sessions, sign out other devices, sign out, see the banner", async () => {
    const phone = await signInElsewhere("Mozilla/5.0 (Linux; Android 15) AppleWebKit/537.36 Chrome/140.0 Mobile")
    const laptop = await signInElsewhere("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Firefox/140.0")
    const page = await browser.context.newPage()
    const watch = await watchPage(page)
    try {
      await page.goto(url("/"))
      await page.getByLabel("Username").fill(demoLogin.username)
      await page.getByLabel("Password").fill(demoLogin.password)
      await Promise.all([
        page.waitForURL(url("/protected")),
        page.getByRole("button", { name: "Sign in here" }).click(),
      ])
      await page.goto(url("/"))
      expect(await page.locator("main").innerText()).toContain("Signed in as Demo User (demo@example.test).")
      expect(await page.locator("main").innerText()).toContain(
        "You signed in with the demo account (username and password), just now.",
      )

      await Promise.all([
        page.waitForURL(url("/account/sessions")),
        page.getByRole("link", { name: "Your sessions (3)" }).click(),
      ])
      expect(await page.title()).toBe("Your sessions · Gatehouse demo")
      expect(await page.locator("li.session").count()).toBe(3)
      const mine = page.locator("li.session", { hasText: "This device" })
      expect(await mine.count()).toBe(1)
      expect(await mine.innerText()).toContain("Chrome on Linux")
      expect(await page.locator("li.session", { hasText: "Chrome on Android" }).count()).toBe(1)
      expect(await page.locator("li.session", { hasText: "Firefox on macOS" }).count()).toBe(1)

      await Promise.all([
        page.waitForURL(url("/account/sessions?done=others")),
        page.getByRole("button", { name: "Sign out other devices" }).click(),
      ])
      expect(await page.getByRole("status").innerText()).toBe("Your other sessions were signed out.")
      expect(await page.locator("li.session").count()).toBe(1)
      expect(await apiStatus(phone)).toBe(401)
      expect(await apiStatus(laptop)).toBe(401)

      await Promise.all([page.waitForURL(url("/?signedOut=1")), mine.getByRole("button", { name: "Sign out" }).click()])
      expect(await page.getByRole("status").innerText()).toBe("You have been signed out.")
      expect(await page.locator("main").innerText()).toContain("You are not signed in.")
      const cookies = await browser.context.cookies(origin)
      expect(cookies.find((c) => c.name === "authjs.session-token")).toBeUndefined()

      // Every demo page was served under the demo's CSP, and nothing was blocked or thrown.
      const demoPages = watch.documents.filter((d) => !new URL(d.url).pathname.startsWith("/auth/"))
      expect(demoPages.length).toBeGreaterThanOrEqual(4)
      for (const d of demoPages) {
        expect(d.csp?.replace(/; script-src 'nonce-[A-Za-z0-9+/=]+' 'self'; connect-src 'self'$/, "")).toBe(demoCsp())
      }
      expect(watch.cspViolations).toEqual([])
      expect(watch.pageErrors).toEqual([])
    } finally {
      await page.close()
    }
  })

  it("federated sign-out: the IdP's end-session page under the demo's CSP, then the banner; the IdP asks again", async () => {
    const page = await browser.context.newPage()
    const watch = await watchPage(page)
    try {
      const signInWithIdp = async () => {
        await page.goto(url("/auth/signin"))
        await Promise.all([
          page.waitForURL((u) => u.origin === idp.issuer && u.pathname.startsWith("/interaction/")),
          page.getByRole("button", { name: "Sign in with the local identity provider" }).click(),
        ])
      }
      await signInWithIdp()
      await page.locator('input[name="login"]').fill("nora")
      await page.locator('input[name="password"]').fill("anything")
      await page.getByRole("button", { name: "Sign-in" }).click()
      await page.getByRole("button", { name: "Continue" }).waitFor()
      await Promise.all([page.waitForURL(url("/")), page.getByRole("button", { name: "Continue" }).click()])
      expect(await page.locator("main").innerText()).toContain(
        "You signed in with the local identity provider (OpenID Connect)",
      )

      await Promise.all([
        page.waitForURL((u) => u.origin === idp.issuer && u.pathname.startsWith("/session/end")),
        page.getByRole("button", { name: "Sign out and end the session at the provider too" }).click(),
      ])
      expect(await page.getByRole("heading").innerText()).toBe("End your session here?")
      await Promise.all([
        page.waitForURL(url("/?signedOut=1")),
        page.getByRole("button", { name: "Yes, sign me out" }).click(),
      ])
      expect(await page.getByRole("status").innerText()).toBe("You have been signed out.")
      const cookies = await browser.context.cookies(origin)
      expect(cookies.find((c) => c.name === "authjs.session-token")).toBeUndefined()

      // The IdP session ended too: signing in with it asks for the login again.
      await signInWithIdp()
      expect(await page.locator('input[name="login"]').count()).toBe(1)
      expect(watch.cspViolations).toEqual([])
      expect(watch.pageErrors).toEqual([])
    } finally {
      await page.close()
      await browser.context.clearCookies()
    }
  })

  it("every text of the demo's pages is readable in light and dark mode (>= 4.5:1)", async () => {
    // The mailbox with a used, an expired and a valid link.
    const start = await fetch(url("/auth/csrf"))
    const cookie = start.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ")
    const { csrfToken } = (await start.json()) as { csrfToken: string }
    for (const email of ["used@example.test", "valid@example.test"]) {
      const sent = await fetch(url("/auth/signin/email"), {
        method: "POST",
        redirect: "manual",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken, email }),
      })
      expect(sent.status).toBe(302)
    }
    const used = mailbox.messages().find((m) => m.to === "used@example.test")!
    expect((await openLinkOverHttp(used.url, cookie)).status).toBe(302)
    await mailbox.provider.sendVerificationRequest({
      identifier: "expired@example.test",
      url: url("/auth/callback/email?token=gone&email=expired%40example.test"),
      expires: new Date(Date.now() - 60_000),
      theme: {},
    } as unknown as Parameters<DevMailbox["provider"]["sendVerificationRequest"]>[0])

    const signedIn = await signInElsewhere("Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0")
    await signInElsewhere("curl/8.5.0")
    const [name, value] = signedIn.split("=") as [string, string]
    await browser.context.addCookies([{ name, value, url: origin }])

    const page = await browser.context.newPage()
    try {
      const pages = [
        url("/"),
        url("/account/sessions?done=others"),
        url("/dev/mailbox"),
        `${idp.issuer}/session/end`,
        url("/protected"),
      ]
      const unreadable: unknown[] = []
      for (const colorScheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme })
        for (const target of pages) {
          await page.goto(target)
          // Without a session at the IdP, its end-session page submits itself and ends on its "Signed out" page.
          if (target.startsWith(idp.issuer)) await page.getByRole("heading", { name: "Signed out" }).waitFor()
          // E2E_SCREENSHOT_DIR=dir keeps a picture of each page in each scheme, to look at.
          if (process.env.E2E_SCREENSHOT_DIR) {
            const name = `${colorScheme}-${new URL(target).pathname.replace(/\W+/g, "_")}.png`
            await page.screenshot({ path: path.join(process.env.E2E_SCREENSHOT_DIR, name), fullPage: true })
          }
          const texts = await paintedTexts(page)
          expect(texts.length).toBeGreaterThan(3)
          for (const t of texts) {
            const ratio = contrastRatio(t.color, t.background)
            if (ratio < 4.5) unreadable.push({ colorScheme, target, ...t, ratio })
          }
        }
        await page.goto(url("/dev/mailbox"))
        const badges = await page.locator(".badge").allInnerTexts()
        expect(badges.sort()).toEqual(["Expired", "Used", "Valid"])
        // The page really switched scheme: the card is dark in dark mode.
        const card = await page.locator("main").evaluate((m) => getComputedStyle(m).backgroundColor)
        expect(card).toBe(colorScheme === "dark" ? "rgb(27, 31, 36)" : "rgb(255, 255, 255)")
      }
      expect(unreadable).toEqual([])
      await browser.context.clearCookies()
      await page.goto(url("/?signedOut=1"))
      for (const colorScheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme })
        const banner = await page.getByRole("status").evaluate((e) => ({
          color: getComputedStyle(e).color,
          background: getComputedStyle(e).backgroundColor,
        }))
        expect(contrastRatio(banner.color, banner.background)).toBeGreaterThanOrEqual(4.5)
      }
    } finally {
      await page.close()
    }
  })
})
