// EM-14 (issue 11, High; checklist ML-10): pre-account hijack through an unverified OAuth sign-up. The first magic
// link proof of the address replaces the never-verified user: the attacker's account link and sessions are gone.
import Database from "better-sqlite3"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import type { Adapter, AdapterUser } from "../../lib/storage/adapter"
import Nodemailer from "../../lib/providers/nodemailer"
import { POSTGRES, describeWithService } from "../adapters/services"
import { postgresAdapterInFreshSchema } from "../fixtures/postgres-adapter"
import { Browser, emailConfig, FROM, locationOf, ORIGIN, SESSION_COOKIE } from "../core/email/harness"
import { driveAuthorization, startOidcProvider, testOidcProvider } from "../fixtures/oauth/oidc-provider"
import type { StartedOidcProvider } from "../fixtures/oauth/oidc-provider"
import { signInLinkOf, startSmtpServer, type SmtpFixture } from "../fixtures/smtp"

const VICTIM = "victim@example.test"
let op: StartedOidcProvider
let smtp: SmtpFixture

beforeAll(async () => {
  smtp = await startSmtpServer()
  // The attacker's OP account claims the victim's address, unverified.
  op = await startOidcProvider({
    redirectUris: [`${ORIGIN}/auth/callback/op`],
    claims: (id) => (id === "mallory" ? { email: VICTIM, email_verified: false } : undefined),
  })
})
afterAll(async () => {
  await op.close()
  await smtp.stop()
})

async function oauthSignIn(browser: Browser, login: string): Promise<Response> {
  const csrfToken = await browser.csrfToken()
  const start = await browser.fetch("/auth/signin/op", { csrfToken })
  const delivery = await driveAuthorization(locationOf(start), `${ORIGIN}/auth/callback/`, { login })
  return browser.fetch(`${delivery.url.pathname}?${delivery.params}`)
}

function scenario(makeAdapter: () => Promise<{ adapter: Adapter; teardown(): Promise<void> }>) {
  let store: { adapter: Adapter; teardown(): Promise<void> }
  beforeEach(async () => {
    store = await makeAdapter()
    smtp.clear()
  })
  afterEach(async () => store.teardown())

  it("the victim's first magic link removes the attacker's link and sessions, and emits accountRecovered", async () => {
    const accountRecovered = jest.fn()
    const { config } = emailConfig(
      [Nodemailer({ server: smtp.url, from: FROM }), testOidcProvider(op, "op", { checks: ["pkce", "state"] })],
      { adapter: store.adapter, events: { accountRecovered } },
    )
    const adapter = store.adapter as Required<Adapter>

    // 1. The attacker signs up through the OP with the victim's address (email_verified: false).
    const attacker = new Browser(config)
    expect(locationOf(await oauthSignIn(attacker, "mallory"))).toBe(ORIGIN)
    const planted = (await adapter.getUserByEmail(VICTIM)) as AdapterUser
    expect(planted.emailVerified).toBeNull()
    expect((await adapter.getUserByAccount({ provider: "op", providerAccountId: "mallory" }))?.id).toBe(planted.id)
    expect((await attacker.session())?.user?.email).toBe(VICTIM)

    // 2. The victim signs in with a magic link.
    const victim = new Browser(config)
    await victim.requestLink(VICTIM)
    expect(locationOf(await victim.openLink(signInLinkOf(await smtp.nextMessage())))).toBe(ORIGIN)
    expect(victim.cookies[SESSION_COOKIE]).toBeDefined()

    // 3. The victim owns a fresh, verified user; the attacker's link and session are gone.
    const owner = (await adapter.getUserByEmail(VICTIM)) as AdapterUser
    expect(owner.id).not.toBe(planted.id)
    expect(owner.emailVerified).toBeInstanceOf(Date)
    expect(await adapter.getUser(planted.id)).toBeNull()
    expect(await adapter.getUserByAccount({ provider: "op", providerAccountId: "mallory" })).toBeNull()
    expect(await attacker.session()).toBeNull()
    expect((await victim.session())?.user?.email).toBe(VICTIM)
    expect(accountRecovered).toHaveBeenCalledTimes(1)
    expect(accountRecovered.mock.calls[0][0]).toMatchObject({
      user: { id: owner.id, email: VICTIM },
      previousUser: { id: planted.id, email: VICTIM },
    })

    // 4. The attacker's OP identity no longer reaches the victim's user.
    const again = new Browser(config)
    expect(locationOf(await oauthSignIn(again, "mallory"))).toBe(`${ORIGIN}/auth/signin?error=OAuthAccountNotLinked`)
  })

  it("an already verified user keeps its id and links (no recovery)", async () => {
    const accountRecovered = jest.fn()
    const { config } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })], {
      adapter: store.adapter,
      events: { accountRecovered },
    })
    const adapter = store.adapter as Required<Adapter>
    const user = await adapter.createUser({ id: "verified-1", email: VICTIM, emailVerified: new Date() })
    const browser = new Browser(config)
    await browser.requestLink(VICTIM)
    expect(locationOf(await browser.openLink(signInLinkOf(await smtp.nextMessage())))).toBe(ORIGIN)
    expect((await adapter.getUserByEmail(VICTIM))?.id).toBe(user.id)
    expect(accountRecovered).not.toHaveBeenCalled()
  })
}

describe("EM-14 on SQLite", () => {
  scenario(async () => {
    const db = new Database(":memory:")
    return { adapter: SQLiteAdapter(db), teardown: async () => void db.close() }
  })
})

describeWithService(POSTGRES, "EM-14 on PostgreSQL", () => {
  scenario(async () => postgresAdapterInFreshSchema("gatehouse_em14"))
})
