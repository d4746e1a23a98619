// tokens.md T2.5 in a real browser (chromium): the native sign-in confirm page after a credentials sign-in. "Continue"
// has the focus, the page has no script, both buttons fit a 360 px viewport without scrolling, and "Continue" sends
// the one-time code to the app's loopback listener.
import { createHash, randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createApp } from "../../examples/cli-login/server"
import { describeWithBrowser, launchBrowser, type LaunchedBrowser } from "../fixtures/browser"

jest.setTimeout(60_000)

describeWithBrowser("e2e: the native sign-in confirm page", () => {
  let app: Server
  let origin: string
  let cli: Server
  let redirectUri: string
  const codes: URLSearchParams[] = []
  let browser: LaunchedBrowser

  beforeAll(async () => {
    app = createServer()
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
    app.on("request", createApp(origin))
    cli = createServer((req, res) => {
      codes.push(new URL(req.url ?? "/", "http://127.0.0.1").searchParams)
      res.writeHead(200, { "content-type": "text/plain" }).end("done")
    })
    await new Promise<void>((resolve) => cli.listen(0, "127.0.0.1", resolve))
    redirectUri = `http://127.0.0.1:${(cli.address() as AddressInfo).port}/callback`
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    for (const server of [app, cli]) {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  test("T2-1/T2-2 in chromium: sign in, confirm at 360 px with Continue focused, the code reaches the app", async () => {
    const verifier = randomBytes(32).toString("base64url")
    const challenge = createHash("sha256").update(verifier).digest("base64url")
    const page = await browser.context.newPage()
    await page.setViewportSize({ width: 360, height: 640 })
    const query = new URLSearchParams({ callbackUrl: redirectUri, code_challenge: challenge, state: "e2e" })
    await page.goto(`${origin}/auth/signin/credentials?${query}`)
    await page.fill('input[name="username"]', "alice")
    await page.fill('input[name="password"]', "wonderland")
    await Promise.all([
      page.waitForURL(/\/auth\/native\?ctx=/),
      page.click('form[action$="/callback/credentials"] button'),
    ])
    expect(await page.textContent("h1")).toBe("Sign in to Example CLI?")
    expect(await page.content()).not.toContain("<script")
    expect(await page.evaluate(() => (document.activeElement as HTMLButtonElement | null)?.value)).toBe("allow")
    for (const action of ["allow", "deny"]) {
      const box = await page.locator(`button[value="${action}"]`).boundingBox()
      expect(box).not.toBeNull()
      expect(box!.y + box!.height).toBeLessThanOrEqual(640)
    }
    expect(await page.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight)).toBe(true)
    await Promise.all([page.waitForURL(new RegExp(`^${redirectUri}`)), page.click('button[value="allow"]')])
    expect(codes).toHaveLength(1)
    const code = codes[0]!.get("code")
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(codes[0]!.get("state")).toBe("e2e")
    const exchange = await fetch(`${origin}/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code, code_verifier: verifier }),
    })
    expect(exchange.status).toBe(200)
    await page.close()
  })
})
