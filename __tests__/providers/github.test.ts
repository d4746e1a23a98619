// GitHub's userinfo request against a local server standing in for the GitHub API: the email fallback.
import { createServer } from "node:http"
import type { IncomingHttpHeaders, Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Profile } from "../../lib/core/kernel/types"
import { providerFetch } from "../../lib/oauth/fetch"
import { customFetch } from "../../lib/symbols"
import type { OAuthConfig, TokenSet } from "../../lib/providers/types"
import GitHub from "../../lib/providers/github"
import type { GitHubEmail } from "../../lib/providers/github"

interface Api {
  user: Record<string, unknown>
  emails: GitHubEmail[] | { status: number }
}

let server: Server
let baseUrl: string
let api: Api
let requests: { path: string; headers: IncomingHttpHeaders }[]

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ path: req.url ?? "", headers: req.headers })
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(body))
    }
    if (req.headers.authorization !== "Bearer gho_token") return send(401, { message: "Bad credentials" })
    if (req.url === "/api/v3/user") return send(200, api.user)
    if (req.url === "/api/v3/user/emails") {
      return Array.isArray(api.emails) ? send(200, api.emails) : send(api.emails.status, { message: "Not Found" })
    }
    send(404, { message: "Not Found" })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

beforeEach(() => {
  requests = []
  api = {
    user: { id: 1, login: "octocat", name: "The Octocat", email: null, avatar_url: "https://avatars.example/1" },
    emails: [],
  }
})

const tokens: TokenSet = { access_token: "gho_token", token_type: "bearer" }

/** Runs the provider's userinfo request the way the core does, with the resolved provider. */
async function userinfo(provider: OAuthConfig<any>, resolved: Partial<OAuthConfig> = {}): Promise<Profile> {
  const { userinfo } = provider
  if (typeof userinfo !== "object" || !("request" in userinfo) || !userinfo.request) throw new Error("no request")
  const merged = { ...provider, ...resolved } as OAuthConfig
  return userinfo.request({ tokens, provider: merged, fetch: providerFetch({ httpTimeout: 10_000, ...merged }) })
}

const email = (address: string, primary: boolean): GitHubEmail => ({
  email: address,
  primary,
  verified: true,
  visibility: primary ? "private" : null,
})

describe("GitHub userinfo request", () => {
  it("uses the public email when the profile has one, without asking for /user/emails", async () => {
    api.user.email = "public@example.com"
    const profile = await userinfo(GitHub({ enterprise: { baseUrl } }))
    expect(profile.email).toBe("public@example.com")
    expect(requests.map((r) => r.path)).toEqual(["/api/v3/user"])
  })

  it("sends the access token as Bearer and a User-Agent", async () => {
    await userinfo(GitHub({ enterprise: { baseUrl } }))
    for (const { headers } of requests) {
      expect(headers.authorization).toBe("Bearer gho_token")
      expect(headers["user-agent"]).toBe("gatehouse-auth")
    }
  })

  it("takes the primary address from /user/emails when there is no public email", async () => {
    api.emails = [email("first@example.com", false), email("primary@example.com", true)]
    const profile = await userinfo(GitHub({ enterprise: { baseUrl } }))
    expect(profile.email).toBe("primary@example.com")
    expect(requests.map((r) => r.path)).toEqual(["/api/v3/user", "/api/v3/user/emails"])
  })

  it("takes the first address when none is primary", async () => {
    api.emails = [email("first@example.com", false), email("second@example.com", false)]
    const profile = await userinfo(GitHub({ enterprise: { baseUrl } }))
    expect(profile.email).toBe("first@example.com")
  })

  it("leaves email null when the account has no address", async () => {
    const profile = await userinfo(GitHub({ enterprise: { baseUrl } }))
    expect(profile.email).toBeNull()
  })

  it("leaves email null when /user/emails is refused (user:email not granted)", async () => {
    api.emails = { status: 404 }
    const profile = await userinfo(GitHub({ enterprise: { baseUrl } }))
    expect(profile.email).toBeNull()
  })

  it("fails when /user fails", async () => {
    const provider = GitHub({ enterprise: { baseUrl } })
    const { userinfo: endpoint } = provider
    if (typeof endpoint !== "object" || !("request" in endpoint) || !endpoint.request) throw new Error("no request")
    await expect(
      endpoint.request({
        tokens: { access_token: "wrong" },
        provider: provider as unknown as OAuthConfig,
        fetch: providerFetch({ httpTimeout: 10_000 }),
      }),
    ).rejects.toThrow("GitHub user request failed")
  })

  it("maps the fetched profile through profile()", async () => {
    api.emails = [email("primary@example.com", true)]
    const provider = GitHub({ enterprise: { baseUrl } })
    const profile = await userinfo(provider)
    expect(await provider.profile!(profile as never, tokens)).toStrictEqual({
      id: "1",
      name: "The Octocat",
      email: "primary@example.com",
      image: "https://avatars.example/1",
    })
  })

  it("goes to api.github.com by default, through the provider's customFetch when set", async () => {
    api.emails = [email("primary@example.com", true)]
    const seen: string[] = []
    const rewrite: typeof fetch = (input, init) => {
      const url = new URL(String(input))
      seen.push(url.href)
      return fetch(`${baseUrl}/api/v3${url.pathname}`, init)
    }
    const profile = await userinfo(GitHub(), { [customFetch]: rewrite })
    expect(seen).toEqual(["https://api.github.com/user", "https://api.github.com/user/emails"])
    expect(profile.email).toBe("primary@example.com")
  })
})
