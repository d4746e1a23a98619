// next-wave E8: the web flavour (`gatehouse-auth/web`) has no client IP unless `rateLimit.ip` gives one. Without it
// the IP rules are skipped with one warning (never one shared bucket for everybody) and the account rule still holds.
import type { AuthConfig, ClientIpSource } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import { Gatehouse } from "../../lib/web"
import { testLogger, type TestLogger } from "../core/helpers"

const APP = "http://localhost:3000"

function setup(rateLimit: AuthConfig["rateLimit"]) {
  const authorized: string[] = []
  const config = {
    secret: "web-rate-limit-secret-0123456789abcdef",
    trustHost: true,
    logger: testLogger(),
    providers: [
      Credentials({
        credentials: { email: {}, password: {} },
        authorize: async (c) => {
          authorized.push(String(c.email))
          return c.password === "right" ? { id: String(c.email), email: String(c.email) } : null
        },
      }),
    ],
    rateLimit,
  } as AuthConfig & { logger: TestLogger }
  const gh = Gatehouse(config)
  let csrf: { cookie: string; token: string } | undefined
  const signIn = async (email: string, password: string, headers: Record<string, string> = {}) => {
    if (!csrf) {
      const response = await gh.handlers.GET(new Request(`${APP}/auth/csrf`))
      const cookie = response.headers
        .getSetCookie()
        .map((line) => line.split(";")[0]!)
        .join("; ")
      csrf = { cookie, token: ((await response.json()) as { csrfToken: string }).csrfToken }
    }
    const response = await gh.handlers.POST(
      new Request(`${APP}/auth/callback/credentials`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrf.cookie, ...headers },
        body: new URLSearchParams({ email, password, csrfToken: csrf.token }),
      }),
    )
    return response.headers.get("location") ?? ""
  }
  return { config, authorized, signIn }
}

describe("E8: web flavour without an ip function", () => {
  it("skips the IP rules with one rate-limit-no-client-ip warning; the account rule limits at 10 failures", async () => {
    const { config, authorized, signIn } = setup({ enabled: true })
    // 15 accounts from "one" client: no IP, so no IP bucket (and no shared global one).
    for (let i = 0; i < 15; i += 1) expect(await signIn(`user${i}@example.com`, "wrong")).toMatch(/CredentialsSignin/)
    expect(authorized).toHaveLength(15)
    expect(config.logger.warnings.filter((w) => w === "rate-limit-no-client-ip")).toHaveLength(1)

    for (let i = 0; i < 10; i += 1) expect(await signIn("ada@example.com", "wrong")).toMatch(/CredentialsSignin/)
    expect(await signIn("ada@example.com", "right")).toMatch(/\/auth\/signin\?error=RateLimited&retry=\d+$/)
    expect(authorized.filter((e) => e === "ada@example.com")).toHaveLength(10)
    expect(config.logger.warnings.filter((w) => w === "rate-limit-no-client-ip")).toHaveLength(1)
  })

  it("with rateLimit.ip the IP rules apply, per returned address", async () => {
    const ip = (request: ClientIpSource) => (request instanceof Request ? request.headers.get("x-real-ip") : null)
    const { config, authorized, signIn } = setup({ enabled: true, ip })
    for (let i = 0; i < 11; i += 1) await signIn(`user${i}@example.com`, "wrong", { "x-real-ip": "198.51.100.7" })
    expect(authorized).toHaveLength(10)
    expect(await signIn("late@example.com", "wrong", { "x-real-ip": "198.51.100.8" })).toMatch(/CredentialsSignin/)
    expect(config.logger.warnings).not.toContain("rate-limit-no-client-ip")
  })
})
