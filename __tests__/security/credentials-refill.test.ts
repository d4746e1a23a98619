// The credentials refill cookie (`gatehouse.credentials-refill`, the non-password fields of a rejected form) on a
// shared device. With the Auth.js browser client, a rejected `signIn("credentials", { redirect: false })` set it
// although that path never shows the built-in form; it then survived the next sign-in and a sign-out, and
// `GET /auth/signin?error=CredentialsSignin` showed the earlier username to the next person. Now it is set only when
// the answer is the built-in page (a plain browser form POST), cleared by every sign-in and sign-out, and shown once.
// Over real HTTP through Express, with the request shapes of the Auth.js client (fetch, `X-Auth-Return-Redirect: 1`)
// and of a browser form (a navigation).
import express from "express"
import type { Express } from "express"
import { Gatehouse } from "../../lib"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import Credentials from "../../lib/providers/credentials"
import Email from "../../lib/providers/email"
import { openLinkOverHttp } from "../fixtures/magic-link"
import { listen, rawRequest, type RawServer } from "../fixtures/raw-http"

const REFILL = "gatehouse.credentials-refill"
const TYPED = "ada-typed-this"

/** What a fetch() from the page sends besides its own headers (same-origin, Chromium). */
const FETCH = { "Sec-Fetch-Mode": "cors", "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Dest": "empty" }
/** What a browser sends when it submits a form (a navigation). */
const NAVIGATION = { "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Dest": "document" }

/** An answer as the browser reads it. */
interface Answer {
  status: number
  location: string | undefined
  setCookies: string[]
  body: string
}

/**
 * One browser: its cookie jar over real HTTP, no redirects followed. Node's `http` client sends the `Sec-Fetch-*`
 * headers as given (its `fetch` would replace `Sec-Fetch-Mode` with `cors`).
 */
class Browser {
  readonly cookies = new Map<string, string>()
  constructor(readonly server: RawServer) {}

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ")
  }

  async send(
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...init.headers }
    if (this.cookies.size > 0) headers.cookie = this.header()
    const raw = await rawRequest(this.server, path, { method: init.method ?? "GET", headers, body: init.body })
    const setCookies = ([] as string[]).concat(raw.headers["set-cookie"] ?? [])
    for (const line of setCookies) {
      const [pair] = line.split(";")
      const at = pair!.indexOf("=")
      const name = pair!.slice(0, at)
      const value = pair!.slice(at + 1)
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const location = raw.headers.location
    return {
      status: raw.status,
      location: typeof location === "string" ? location : undefined,
      setCookies,
      body: raw.body,
    }
  }

  async csrfToken(): Promise<string> {
    return (JSON.parse((await this.send("/auth/csrf", { headers: FETCH })).body) as { csrfToken: string }).csrfToken
  }

  /** `signIn("credentials", { redirect: false, ...fields })` of the Auth.js client. */
  async clientSignIn(fields: Record<string, string>): Promise<{ url: string; response: Answer }> {
    const csrfToken = await this.csrfToken()
    const response = await this.send("/auth/callback/credentials", {
      method: "POST",
      headers: { ...FETCH, "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
      body: new URLSearchParams({ ...fields, csrfToken, callbackUrl: `${this.server.url}/` }).toString(),
    })
    return { url: (JSON.parse(response.body) as { url: string }).url, response }
  }

  /** `signOut({ redirect: false })` of the Auth.js client. */
  async clientSignOut(): Promise<Answer> {
    const csrfToken = await this.csrfToken()
    return this.send("/auth/signout", {
      method: "POST",
      headers: { ...FETCH, "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
      body: new URLSearchParams({ csrfToken, callbackUrl: `${this.server.url}/` }).toString(),
    })
  }

  /** The built-in sign-in form submitted by the browser (a navigation, no script). */
  async formSignIn(fields: Record<string, string>): Promise<Answer> {
    const page = (await this.send("/auth/signin", { headers: NAVIGATION })).body
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(page)![1]!
    return this.send("/auth/callback/credentials", {
      method: "POST",
      headers: { ...NAVIGATION, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...fields, csrfToken }).toString(),
    })
  }

  /** The built-in sign-in page as a navigation. */
  async signInPage(query = "?error=CredentialsSignin"): Promise<string> {
    return (await this.send(`/auth/signin${query}`, { headers: NAVIGATION })).body
  }
}

let server: RawServer
let links: string[]

function start(overrides: Partial<AuthConfig> = {}): Promise<RawServer> {
  links = []
  const gh = Gatehouse({
    secret: "credentials-refill-secret-0123456789abcdef",
    trustHost: true,
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        authorize: (c) => (c.username === "bob" && c.password === "right" ? { id: "bob", name: "Bob" } : null),
      }),
      Email({ sendVerificationRequest: ({ url }) => void links.push(url) }),
    ],
    ...overrides,
  })
  const app: Express = express()
  app.use("/auth", gh.handlers)
  return listen(app)
}

afterEach(async () => {
  await server?.close()
})

describe("the credentials refill cookie on a shared device", () => {
  it("the reported sequence: a rejected client sign-in, a sign-in and a sign-out leave no cookie and no name", async () => {
    server = await start()
    const browser = new Browser(server)
    const rejected = await browser.clientSignIn({ username: TYPED, password: "wrong" })
    expect(rejected.url).toMatch(/\/auth\/signin\?error=CredentialsSignin&code=credentials$/)
    expect(rejected.response.setCookies.join()).not.toContain(REFILL)
    expect(browser.cookies.has(REFILL)).toBe(false)

    const signedIn = await browser.clientSignIn({ username: "bob", password: "right" })
    expect(signedIn.url).toBe(`${server.url}/`)
    expect(browser.cookies.has("authjs.session-token")).toBe(true)
    await browser.clientSignOut()
    expect(browser.cookies.has("authjs.session-token")).toBe(false)

    const page = await browser.signInPage()
    expect(page).not.toContain(TYPED)
    expect(browser.cookies.has(REFILL)).toBe(false)
  })

  it("nothing is kept for a JSON body, an X-Auth-Return-Redirect form, or a fetch() without it", async () => {
    server = await start()
    const browser = new Browser(server)
    const csrfToken = await browser.csrfToken()
    const json = await browser.send("/auth/callback/credentials", {
      method: "POST",
      headers: { ...FETCH, "Content-Type": "application/json" },
      body: JSON.stringify({ username: TYPED, password: "wrong", csrfToken }),
    })
    expect(json.status).toBe(302)
    const fetched = await browser.send("/auth/callback/credentials", {
      method: "POST",
      headers: { ...FETCH, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: TYPED, password: "wrong", csrfToken }).toString(),
    })
    expect(fetched.location).toMatch(/error=CredentialsSignin/)
    const returned = await browser.send("/auth/callback/credentials", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
      body: new URLSearchParams({ username: TYPED, password: "wrong", csrfToken }).toString(),
    })
    expect(returned.status).toBe(200)
    expect(browser.cookies.has(REFILL)).toBe(false)
    expect(await browser.signInPage()).not.toContain(TYPED)
  })

  it("a plain browser form POST still gets its name back on the built-in page, once", async () => {
    server = await start()
    const browser = new Browser(server)
    const rejected = await browser.formSignIn({ username: TYPED, password: "wrong" })
    expect(rejected.status).toBe(302)
    expect(rejected.location).toMatch(/\/auth\/signin\?error=CredentialsSignin&code=credentials$/)
    expect(browser.cookies.has(REFILL)).toBe(true)

    const shown = await browser.signInPage()
    expect(shown).toContain(`value="${TYPED}"`)
    expect(shown).not.toContain("wrong")
    expect(browser.cookies.has(REFILL)).toBe(false)
    expect(await browser.signInPage()).not.toContain(TYPED)
  })

  it("a showing of the page without the error ends it too: a later error page shows nothing", async () => {
    server = await start()
    const browser = new Browser(server)
    await browser.formSignIn({ username: TYPED, password: "wrong" })
    expect(browser.cookies.has(REFILL)).toBe(true)
    const plain = await browser.signInPage("")
    expect(plain).not.toContain(TYPED)
    expect(browser.cookies.has(REFILL)).toBe(false)
    expect(await browser.signInPage()).not.toContain(TYPED)
  })

  it("a successful credentials sign-in clears a cookie a form left", async () => {
    server = await start()
    const browser = new Browser(server)
    await browser.formSignIn({ username: TYPED, password: "wrong" })
    const signedIn = await browser.clientSignIn({ username: "bob", password: "right" })
    expect(signedIn.response.setCookies.find((line) => line.startsWith(`${REFILL}=;`))).toMatch(/Max-Age=0/)
    expect(browser.cookies.has(REFILL)).toBe(false)
    expect(await browser.signInPage()).not.toContain(TYPED)
  })

  it("a sign-in with another method (a magic link) clears it", async () => {
    server = await start()
    const browser = new Browser(server)
    await browser.formSignIn({ username: TYPED, password: "wrong" })
    const csrfToken = await browser.csrfToken()
    await browser.send("/auth/signin/email", {
      method: "POST",
      headers: { ...NAVIGATION, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "carol@example.com", csrfToken }).toString(),
    })
    expect(links).toHaveLength(1)
    const confirmed = await openLinkOverHttp(links[0]!, browser.header())
    expect(confirmed.status).toBe(302)
    const set = confirmed.headers.getSetCookie()
    expect(set.some((line) => line.startsWith("authjs.session-token="))).toBe(true)
    expect(set.find((line) => line.startsWith(`${REFILL}=;`))).toMatch(/Max-Age=0/)
  })

  it("a sign-out clears it, with or without a session", async () => {
    server = await start()
    const browser = new Browser(server)
    await browser.formSignIn({ username: TYPED, password: "wrong" })
    expect(browser.cookies.has(REFILL)).toBe(true)
    await browser.clientSignOut()
    expect(browser.cookies.has(REFILL)).toBe(false)
    expect(await browser.signInPage()).not.toContain(TYPED)
  })

  it("with a custom pages.signIn nothing is kept: the built-in form is never shown", async () => {
    server = await start({ pages: { signIn: "/login" } })
    const browser = new Browser(server)
    const csrfToken = await browser.csrfToken()
    const rejected = await browser.send("/auth/callback/credentials", {
      method: "POST",
      headers: { ...NAVIGATION, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: TYPED, password: "wrong", csrfToken }).toString(),
    })
    expect(rejected.location).toMatch(/\/login\?error=CredentialsSignin/)
    expect(browser.cookies.has(REFILL)).toBe(false)
  })
})
