// Bitbucket's account id moved from `uuid` (Gatehouse 0.1) to `account_id` (Auth.js): an account stored under the
// uuid is re-keyed at its next sign-in, never duplicated. Bitbucket's hosted endpoints are answered by a local fetch.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import Bitbucket from "../../lib/providers/bitbucket"
import { customFetch } from "../../lib/symbols"
import { Gatehouse } from "../../lib/web/gatehouse"
import { Browser, recordingLogger } from "../refresh/harness"
import { profileFixture } from "./support/describe-provider"

const sample = profileFixture("bitbucket") as { uuid: string; account_id: string }

/** Bitbucket's token, user and email endpoints, as they answer a signed-in user. */
const bitbucketApi = (async (input: string | URL | Request) => {
  const url = new URL(input instanceof Request ? input.url : input)
  if (url.href === "https://bitbucket.org/site/oauth2/access_token") {
    return Response.json({ access_token: "bb-at", token_type: "bearer", expires_in: 3600 })
  }
  if (url.href === "https://api.bitbucket.org/2.0/user") {
    const { email: _email, ...user } = profileFixture("bitbucket")
    return Response.json(user)
  }
  if (url.href === "https://api.bitbucket.org/2.0/user/emails") {
    return Response.json({ values: [{ email: "erik@example.com", is_primary: true, is_confirmed: true }] })
  }
  return new Response("unexpected", { status: 599 })
}) as typeof fetch

async function signIn(adapter: ReturnType<typeof MemoryAdapter>) {
  const gh = Gatehouse({
    secret: "bitbucket-rekey-secret-0123456789abcdef0123",
    trustHost: true,
    adapter,
    logger: recordingLogger(),
    providers: [Bitbucket({ clientId: "bb-client", clientSecret: "bb-secret", [customFetch]: bitbucketApi })],
  })
  const browser = new Browser()
  const start = await gh.signIn(browser.request("/", { method: "POST" }), "bitbucket", { redirect: true })
  browser.absorb(start)
  const state = new URL(start.headers.get("location") as string).searchParams.get("state") as string
  const callback = (await gh.handle(browser.request(`/auth/callback/bitbucket?code=c1&state=${state}`)))!
  browser.absorb(callback)
  return (await (await gh.handle(browser.request("/auth/session")))!.json()) as { user?: { email?: string } } | null
}

test("an account stored under the uuid is moved to account_id at the next sign-in: one user, one account", async () => {
  const adapter = MemoryAdapter()
  const user = await adapter.createUser({ id: "u-1", email: "erik@example.com", emailVerified: null, name: "Erik" })
  await adapter.linkAccount({
    userId: user.id,
    type: "oauth",
    provider: "bitbucket",
    providerAccountId: sample.uuid,
    access_token: "old-at",
  })
  const session = await signIn(adapter)
  expect(session?.user?.email).toBe("erik@example.com")
  expect(await adapter.getAccount(sample.uuid, "bitbucket")).toBeNull()
  expect(await adapter.getAccount(sample.account_id, "bitbucket")).toMatchObject({ userId: "u-1" })
  expect(await adapter.getUserByAccount({ provider: "bitbucket", providerAccountId: sample.account_id })).toMatchObject(
    { id: "u-1" },
  )
})

test("a new Bitbucket user is stored under account_id, as Auth.js stores it", async () => {
  const adapter = MemoryAdapter()
  const session = await signIn(adapter)
  expect(session?.user?.email).toBe("erik@example.com")
  expect(await adapter.getAccount(sample.account_id, "bitbucket")).not.toBeNull()
  expect(await adapter.getAccount(sample.uuid, "bitbucket")).toBeNull()
})
