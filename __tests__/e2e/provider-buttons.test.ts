// Every catalogue provider's sign-in button in a real browser, in the light and the dark scheme: a built-in mark, no
// image request, and text that contrasts with its background by at least 4.5:1 (WCAG AA).
import { readdirSync } from "node:fs"
import path from "node:path"
import { Auth } from "../../lib/core"
import type { AuthConfig } from "../../lib/core/kernel/types"
import type { Provider } from "../../lib/providers/types"
import { describeWithBrowser, launchBrowser, type LaunchedBrowser } from "../fixtures/browser"

jest.setTimeout(60_000)

/** WCAG 2 contrast ratio of two computed `rgb(r, g, b)` colours (opaque). */
function contrastRatio(a: string, b: string): number {
  const luminance = (color: string) => {
    const parts = (color.match(/[\d.]+/g) ?? []).map(Number)
    if (parts.length < 3 || (parts.length > 3 && parts[3] !== 1)) throw new Error(`not an opaque colour: ${color}`)
    const [r, g, bl] = parts.slice(0, 3).map((c) => {
      const v = c / 255
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
    }) as [number, number, number]
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl
  }
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (hi + 0.05) / (lo + 0.05)
}

/** Every OAuth/OIDC provider of the catalogue (lib/providers/*.ts), configured with placeholder credentials. */
async function catalogue(): Promise<Provider[]> {
  const dir = path.join(__dirname, "../../lib/providers")
  const providers: Provider[] = []
  const notOAuth = ["types.ts", "credentials.ts", "email.ts", "nodemailer.ts", "passkey.ts", "webauthn.ts"]
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && !notOAuth.includes(f))) {
    const mod = (await import(path.join(dir, file))) as { default?: (options: object) => { type?: string } }
    if (typeof mod.default !== "function") continue
    // An issuer in Microsoft Entra ID's form (<authority>/<tenant>/v2.0), which its factory requires; any will do here.
    const provider = mod.default({ clientId: "id", clientSecret: "secret", issuer: "https://idp.example/tenant/v2.0" })
    if (provider.type === "oauth" || provider.type === "oidc") providers.push(provider as Provider)
  }
  return providers
}

interface ButtonColours {
  name: string
  color: string
  background: string
  marks: number
}

describeWithBrowser("e2e: provider buttons in light and dark mode", () => {
  let browser: LaunchedBrowser
  let html = ""
  let count = 0

  beforeAll(async () => {
    const providers = await catalogue()
    count = providers.length
    const config: AuthConfig = { secret: "provider-buttons-secret-0123456789abcdef", trustHost: true, providers }
    const response = await Auth(new Request("https://app.example/auth/signin"), config)
    expect(response.status).toBe(200)
    html = await response.text()
    browser = await launchBrowser()
  })
  afterAll(async () => browser?.close())

  it("the catalogue is all there", () => {
    expect(count).toBeGreaterThanOrEqual(62)
  })

  it("at 320 px the page with every button does not scroll sideways, and each button is reachable by Tab in order", async () => {
    const page = await browser.context.newPage()
    try {
      await page.setViewportSize({ width: 320, height: 640 })
      await page.setContent(html)
      const widths = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }))
      expect(widths.scroll).toBeLessThanOrEqual(widths.client)
      const names = await page.$$eval(".provider-button", (buttons) => buttons.map((b) => b.textContent?.trim() ?? ""))
      expect(names).toHaveLength(count)
      const reached: string[] = []
      for (let i = 0; i < 200 && reached.length < names.length; i++) {
        await page.keyboard.press("Tab")
        const focused = await page.evaluate(() => {
          const el = document.activeElement
          return el?.classList.contains("provider-button") ? (el.textContent?.trim() ?? "") : null
        })
        if (focused !== null) reached.push(focused)
      }
      expect(reached).toEqual(names)
    } finally {
      await page.close()
    }
  })

  it.each(["light", "dark"] as const)("%s mode: every button has a mark and text contrast >= 4.5:1", async (scheme) => {
    const page = await browser.context.newPage()
    try {
      await page.emulateMedia({ colorScheme: scheme })
      await page.setContent(html)
      const buttons: ButtonColours[] = await page.$$eval(".provider-button", (elements) =>
        elements.map((button) => {
          const style = getComputedStyle(button)
          return {
            name: button.textContent ?? "",
            color: style.color,
            background: style.backgroundColor,
            marks: button.querySelectorAll("svg.provider-mark").length,
          }
        }),
      )
      expect(buttons).toHaveLength(count)
      const failures = buttons
        .map((b) => ({ ...b, ratio: Math.round(contrastRatio(b.color, b.background) * 100) / 100 }))
        .filter((b) => b.ratio < 4.5 || b.marks !== 1)
      expect(failures).toEqual([])
      // The scheme really changed the page (the card follows it), so both passes measure different colours.
      const card = await page.$eval(".card", (el) => getComputedStyle(el).backgroundColor)
      expect(card).toBe(scheme === "dark" ? "rgb(27, 31, 36)" : "rgb(255, 255, 255)")
    } finally {
      await page.close()
    }
    expect(browser.blockedRequests).toEqual([])
  })

  it("GitHub and Apple stay visible in dark mode: a light button with the brand colour as text", async () => {
    const page = await browser.context.newPage()
    try {
      await page.emulateMedia({ colorScheme: "dark" })
      await page.setContent(html)
      const colours = async (name: string) =>
        page.$eval(`.provider-button:has-text("Sign in with ${name}")`, (el) => {
          const style = getComputedStyle(el)
          return { color: style.color, background: style.backgroundColor }
        })
      expect(await colours("GitHub")).toEqual({ color: "rgb(36, 41, 47)", background: "rgb(255, 255, 255)" })
      expect(await colours("Apple")).toEqual({ color: "rgb(0, 0, 0)", background: "rgb(255, 255, 255)" })
      expect(await colours("Google")).toEqual({ color: "rgb(227, 227, 227)", background: "rgb(19, 19, 20)" })
    } finally {
      await page.close()
    }
  })
})
