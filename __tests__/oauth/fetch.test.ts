// The hardened fetch the OAuth engine uses and hands to provider code: the provider's customFetch, bounded by
// httpTimeout (even when the custom fetch ignores the signal), never following a redirect.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { finishOAuthSignIn, normalizeOAuthProvider, startOAuthSignIn } from "../../lib/oauth"
import { providerFetch } from "../../lib/oauth/fetch"
import { GitHub } from "../../lib/providers/github"
import { customFetch } from "../../lib/symbols"
import { Browser, followAuthorization } from "../fixtures/oauth/flow"
import { startGithubLike, type GithubLike } from "../fixtures/oauth/github-like"

let server: Server
let origin = ""
const hits: string[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? "")
    if (req.url === "/redirect") res.writeHead(302, { Location: "/target" }).end()
    else if (req.url === "/hang")
      return // never answers
    else res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}')
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})
beforeEach(() => {
  hits.length = 0
})

describe("providerFetch", () => {
  it("passes an ordinary request through", async () => {
    const response = await providerFetch({ httpTimeout: 5000 })(`${origin}/ok`)
    expect(await response.json()).toEqual({ ok: true })
  })

  it("does not follow a redirect: the request fails and the target is never asked", async () => {
    await expect(providerFetch({ httpTimeout: 5000 })(`${origin}/redirect`)).rejects.toMatchObject({
      name: "TypeError",
    })
    expect(hits).toEqual(["/redirect"])
  })

  it("gives up after httpTimeout with a TimeoutError", async () => {
    await expect(providerFetch({ httpTimeout: 100 })(`${origin}/hang`)).rejects.toMatchObject({ name: "TimeoutError" })
  })

  it("bounds a custom fetch that ignores the signal, and honours the caller's own signal", async () => {
    const seen: RequestInit[] = []
    const stuck = ((_input: unknown, init: RequestInit) => {
      seen.push(init)
      return new Promise<Response>(() => undefined)
    }) as typeof fetch
    const bounded = providerFetch({ httpTimeout: 100, [customFetch]: stuck })
    await expect(bounded("https://op.example/token")).rejects.toMatchObject({ name: "TimeoutError" })
    expect(seen[0]).toMatchObject({ redirect: "error" })
    const caller = new AbortController()
    const pending = providerFetch({ httpTimeout: 60_000, [customFetch]: stuck })("https://op.example/x", {
      signal: caller.signal,
    })
    caller.abort(new Error("caller gave up"))
    await expect(pending).rejects.toThrow("caller gave up")
  })
})

describe("the OAuth engine goes through it", () => {
  let gh: GithubLike
  beforeAll(async () => {
    gh = await startGithubLike({ publicEmail: false })
  })
  afterAll(() => gh.close())

  function github(fetchImpl: typeof fetch, httpTimeout: number) {
    const { options, ...defaults } = GitHub({ enterprise: { baseUrl: gh.origin } })
    return normalizeOAuthProvider(
      {
        ...defaults,
        ...options,
        clientId: gh.clientId,
        clientSecret: gh.clientSecret,
        allowInsecureRequests: true,
        [customFetch]: fetchImpl,
      },
      { httpTimeout },
    )
  }

  it("token and catalogue userinfo requests use the customFetch; a hung /user/emails fails the callback", async () => {
    const urls: string[] = []
    const hangOnEmails = ((input: string | URL | Request, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input)
      urls.push(new URL(url).pathname)
      if (url.endsWith("/user/emails")) return new Promise<Response>(() => undefined)
      return fetch(input, init)
    }) as typeof fetch
    const provider = github(hangOnEmails, 200)
    const browser = new Browser()
    const params = await followAuthorization(await startOAuthSignIn(browser.context(provider)))
    await expect(finishOAuthSignIn(browser.context(provider), params)).rejects.toMatchObject({
      name: "OAuthProtocolError",
      code: "oauth_unavailable",
      cause: { code: "TimeoutError", provider: provider.id },
    })
    expect(urls).toEqual(["/login/oauth/access_token", "/api/v3/user", "/api/v3/user/emails"])
  })

  it("the same provider signs in when the server answers", async () => {
    const urls: string[] = []
    const recording = ((input: string | URL | Request, init?: RequestInit) => {
      urls.push(new URL(input instanceof Request ? input.url : String(input)).pathname)
      return fetch(input, init)
    }) as typeof fetch
    const provider = github(recording, 5000)
    const browser = new Browser()
    const params = await followAuthorization(await startOAuthSignIn(browser.context(provider)))
    const result = await finishOAuthSignIn(browser.context(provider), params)
    expect(result.kind === "profile" && result.user.email).toBe("primary@github.example")
    expect(urls).toHaveLength(3)
  })
})
