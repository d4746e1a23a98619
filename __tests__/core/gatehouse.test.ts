/**
 * The runtime behind Gatehouse(config): a lazy config that returns a new object per request keeps the OAuth
 * discovery cache (the resolved providers stay the same objects while they are equal).
 */
import type { AuthConfig } from "../../lib/core/kernel/types"
import type { OAuthConfig } from "../../lib/providers/types"
import { Gatehouse } from "../../lib/web"
import { startMisbehavingOp, type MisbehavingOp } from "../fixtures/oauth/misbehaving-op"
import { testLogger } from "./helpers"

const APP = "http://localhost:3000"
let op: MisbehavingOp

beforeAll(async () => {
  op = await startMisbehavingOp({ case: "oidcc-client-test" })
})
afterAll(async () => op.close())

function evil(overrides: Partial<OAuthConfig> = {}): OAuthConfig {
  return {
    id: "evil",
    name: "Test OP",
    type: "oidc",
    issuer: op.issuer,
    clientId: op.clientId,
    clientSecret: op.clientSecret,
    allowInsecureRequests: true,
    ...overrides,
  }
}

function discoveries(): number {
  return op.requests.filter((r) => r.path === "/.well-known/openid-configuration").length
}

async function startSignIns(lazy: () => AuthConfig, times: number): Promise<void> {
  const gh = Gatehouse(lazy)
  for (let i = 0; i < times; i++) {
    const response = await gh.signIn(new Request(`${APP}/login`), "evil")
    expect(response.status).toBe(302)
    expect(response.headers.get("location")!.startsWith(op.issuer)).toBe(true)
  }
}

describe("lazy config and the OAuth caches", () => {
  const base = { secret: "runtime-test-secret-0123456789abcdef", trustHost: true, logger: testLogger() }

  it("a new config object per request with the same provider keeps the discovered metadata", async () => {
    const provider = evil()
    const before = discoveries()
    await startSignIns(() => ({ ...base, providers: [provider] }), 3)
    expect(discoveries() - before).toBe(1)
  })

  it("an equal provider built anew each time (same functions) is reused too", async () => {
    const profile = (p: Record<string, unknown>) => ({ id: String(p.sub) })
    const before = discoveries()
    await startSignIns(() => ({ ...base, providers: [evil({ profile })] }), 3)
    expect(discoveries() - before).toBe(1)
  })

  it("a provider whose functions differ is never mixed up with an earlier one: it discovers on its own", async () => {
    const before = discoveries()
    await startSignIns(() => ({ ...base, providers: [evil({ profile: (p) => ({ id: String(p.sub) }) })] }), 2)
    expect(discoveries() - before).toBe(2)
  })
})
