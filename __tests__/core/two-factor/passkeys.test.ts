// Two-factor sign-in after a passkey (two-factor spec section 5.1 step 2): with `passkeys: "skip"` (default) an
// assertion with user verification is two factors; without the UV flag, or with `"enforce"`, the second step is asked.
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { newTotpSecret } from "../../../lib/core/methods/two-factor/secret"
import type { TwoFactorOptions } from "../../../lib/core/kernel/types"
import { Client, newAuthenticator, passkeyConfig, SESSION_COOKIE } from "../webauthn/harness"
import { SECRET } from "../helpers"
import { enrolTotp } from "../../fixtures/totp"

async function enrolledPasskeyUser(twoFactor: TwoFactorOptions, provider = {}) {
  const adapter = MemoryAdapter()
  const { config, recorder } = passkeyConfig(adapter, { config: { twoFactor }, provider })
  const client = new Client(config)
  const authenticator = newAuthenticator()
  const email = "pat@example.test"
  const registered = await client.register(authenticator, `email=${encodeURIComponent(email)}`)
  expect(registered.status).toBe(302)
  const user = (await adapter.getUserByEmail(email))!
  await enrolTotp(adapter, user.id, [SECRET], newTotpSecret())
  return { adapter, config, recorder, authenticator }
}

async function passkeySignIn(
  config: ConstructorParameters<typeof Client>[0],
  authenticator: ReturnType<typeof newAuthenticator>,
  uv: boolean,
) {
  const client = new Client(config)
  const response = await client.authenticate(authenticator, { uv })
  return { response, client }
}

describe("two-factor sign-in after a passkey", () => {
  it('"skip": an assertion with user verification signs in without a second step', async () => {
    const { config, authenticator, recorder } = await enrolledPasskeyUser({})
    const before = recorder.signIn
    const { response, client } = await passkeySignIn(config, authenticator, true)
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).not.toContain("/auth/two-factor")
    expect(client.cookies[SESSION_COOKIE]).toBeDefined()
    expect(recorder.signIn).toBe(before + 1)
  })

  it("without the UV flag the second step is asked, and no session is issued", async () => {
    const { config, authenticator, recorder } = await enrolledPasskeyUser(
      {},
      { verifyAuthenticationOptions: { requireUserVerification: false } },
    )
    const before = recorder.signIn
    const { response, client } = await passkeySignIn(config, authenticator, false)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/two-factor")
    expect(client.cookies[SESSION_COOKIE]).toBeUndefined()
    expect(client.cookies["gatehouse.two-factor"]).toBeDefined()
    expect(recorder.signIn).toBe(before)
  })

  it('"enforce": even a user-verified passkey is asked the second step', async () => {
    const { config, authenticator } = await enrolledPasskeyUser({ passkeys: "enforce" })
    const { response, client } = await passkeySignIn(config, authenticator, true)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/two-factor")
    expect(client.cookies[SESSION_COOKIE]).toBeUndefined()
  })
})
