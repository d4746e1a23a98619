// Passkeys on the real databases (SQLite, PostgreSQL, Redis) through Auth(): sign-up and sign-in (B3/B4), replay of
// an identical callback (B5) and the counter rules including parallel assertions (B6); and once through Express.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import express from "express"
import Redis from "ioredis"
import { postgresAdapterInFreshSchema } from "../fixtures/postgres-adapter"
import request from "supertest"
import type { Adapter } from "../../lib/storage/adapter"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import { ExpressAuth } from "../../lib/express"
import { POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { Client, newAuthenticator, passkeyConfig, RP_ORIGIN, SESSION_COOKIE } from "../core/webauthn/harness"

interface Store {
  adapter: Adapter
  teardown: () => Promise<void>
}

const verificationError = `${RP_ORIGIN}/auth/error?error=WebAuthnVerificationError`
const location = (response: Response): string => response.headers.get("location") ?? ""

function passkeySuite(open: () => Promise<Store>): void {
  let store: Store
  beforeAll(async () => {
    store = await open()
  })
  afterAll(async () => store.teardown())

  async function signedUp() {
    const { config, recorder } = passkeyConfig(store.adapter)
    const email = `pk-${randomSuffix()}@example.com`
    const authenticator = newAuthenticator()
    const response = await new Client(config).register(authenticator, `email=${encodeURIComponent(email)}`)
    expect(location(response)).toBe(RP_ORIGIN)
    const credentialID = authenticator.credentialId.toString("base64")
    return { config, recorder, email, authenticator, credentialID }
  }

  it("B3/B4: an unknown email signs up with a passkey, then signs in with it", async () => {
    const { config, email, authenticator, credentialID } = await signedUp()
    const user = await store.adapter.getUserByEmail?.(email)
    expect(user?.emailVerified).toBeNull()
    expect(await store.adapter.getAccount?.(credentialID, "passkey")).toMatchObject({ type: "webauthn" })
    const client = new Client(config)
    expect(location(await client.authenticate(authenticator))).toBe(RP_ORIGIN)
    expect((await client.session())?.user?.email).toBe(email)
    const stored = await store.adapter.getAuthenticator?.(credentialID)
    expect(stored).toMatchObject({ counter: 0, name: "Passkey", credentialDeviceType: "singleDevice" })
    expect(stored?.lastUsedAt).toBeInstanceOf(Date)
  })

  it("B5: the identical callback with the identical cookie is rejected the second time; no new session", async () => {
    const { config, recorder, authenticator } = await signedUp()
    const client = new Client(config)
    expect(location(await client.authenticate(authenticator))).toBe(RP_ORIGIN)
    const sessions = recorder.sessionsCreated
    const replayed = await client.replay()
    expect(replayed.status).toBe(302)
    expect(location(replayed)).toBe(verificationError)
    expect(replayed.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false)
    expect(recorder.sessionsCreated).toBe(sessions)
  })

  it("B5: three simultaneous posts of one fresh assertion: exactly one signs in", async () => {
    const { config, recorder, authenticator } = await signedUp()
    const client = new Client(config)
    const answer = await client.options("action=authenticate")
    const data = JSON.stringify(authenticator.authenticate(answer.body.options as never))
    const csrfToken = await client.csrfToken()
    client.last = { cookies: { ...client.cookies }, body: { action: "authenticate", data, csrfToken } }
    const sessions = recorder.sessionsCreated
    const results = await Promise.all([client.replay(), client.replay(), client.replay()])
    expect(results.filter((r) => location(r) === RP_ORIGIN)).toHaveLength(1)
    expect(results.filter((r) => location(r) === verificationError)).toHaveLength(2)
    expect(recorder.sessionsCreated).toBe(sessions + 1)
  })

  it("B6: counter 5 then 5 is refused (one warning, one alert), 7 is accepted, parallel 8 and 9 end at 9", async () => {
    const { config, recorder, authenticator, credentialID } = await signedUp()
    await store.adapter.updateAuthenticatorCounter?.(credentialID, 5)

    const refused = await new Client(config).authenticate(authenticator, { counter: 5 })
    expect(location(refused)).toBe(verificationError)
    expect((await store.adapter.getAuthenticator?.(credentialID))?.counter).toBe(5)
    expect(config.logger.warnings.filter((w) => w === "webauthn-counter-regression")).toHaveLength(1)
    expect(recorder.securityAlerts).toEqual([
      { type: "webauthn.counter_regression", userId: expect.any(String), credentialID },
    ])

    expect(location(await new Client(config).authenticate(authenticator, { counter: 7 }))).toBe(RP_ORIGIN)
    expect((await store.adapter.getAuthenticator?.(credentialID))?.counter).toBe(7)

    const a = new Client(config)
    const b = new Client(config)
    const [optionsA, optionsB] = await Promise.all([a.options("action=authenticate"), b.options("action=authenticate")])
    const assertion8 = authenticator.authenticate(optionsA.body.options as never, { counter: 8 })
    const assertion9 = authenticator.authenticate(optionsB.body.options as never, { counter: 9 })
    const [tokenA, tokenB] = await Promise.all([a.csrfToken(), b.csrfToken()])
    const results = await Promise.all([
      a.callback("authenticate", assertion8, { csrf: false, body: { csrfToken: tokenA } }),
      b.callback("authenticate", assertion9, { csrf: false, body: { csrfToken: tokenB } }),
    ])
    expect(location(results[1] as Response)).toBe(RP_ORIGIN)
    expect((await store.adapter.getAuthenticator?.(credentialID))?.counter).toBe(9)
  })

  it("onCounterRegression: disable deletes the credential it caught", async () => {
    const { authenticator, credentialID } = await signedUp()
    const { config } = passkeyConfig(store.adapter, { provider: { onCounterRegression: "disable" } })
    await store.adapter.updateAuthenticatorCounter?.(credentialID, 3)
    expect(location(await new Client(config).authenticate(authenticator, { counter: 2 }))).toBe(verificationError)
    await expect(store.adapter.getAuthenticator?.(credentialID)).resolves.toBeNull()
  })
}

describe("passkeys on SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-passkeys-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  passkeySuite(async () => {
    const db = new Database(join(dir, "auth.sqlite"))
    return { adapter: SQLiteAdapter(db), teardown: async () => void db.close() }
  })

  it("through Express: sign up with a passkey, sign out, sign back in", async () => {
    const db = new Database(join(dir, "express.sqlite"))
    const { config } = passkeyConfig(SQLiteAdapter(db))
    const app = express()
    app.set("trust proxy", false)
    app.use("/auth", ExpressAuth(config))
    const agent = request.agent(app)
    const authenticator = newAuthenticator()
    const host = { Host: "localhost:3000" }
    const csrf = async (): Promise<string> => (await agent.get("/auth/csrf").set(host)).body.csrfToken as string

    const registerOptions = await agent.get("/auth/webauthn-options/passkey?email=express%40example.com").set(host)
    expect(registerOptions.status).toBe(200)
    expect(registerOptions.body.action).toBe("register")
    const registered = await agent
      .post("/auth/callback/passkey")
      .set(host)
      .type("form")
      .send({
        action: "register",
        data: JSON.stringify(authenticator.register(registerOptions.body.options)),
        csrfToken: await csrf(),
      })
    expect(registered.status).toBe(302)
    expect(registered.headers.location).toBe(RP_ORIGIN)
    expect((await agent.get("/auth/session").set(host)).body.user.email).toBe("express@example.com")

    const signedOut = await agent
      .post("/auth/signout")
      .set(host)
      .type("form")
      .send({ csrfToken: await csrf() })
    expect(signedOut.status).toBe(302)
    expect((await agent.get("/auth/session").set(host)).body).toBeNull()

    const loginOptions = await agent.get("/auth/webauthn-options/passkey?action=authenticate").set(host)
    expect(loginOptions.body.options.allowCredentials).toEqual([])
    const signedIn = await agent
      .post("/auth/callback/passkey")
      .set(host)
      .type("form")
      .send({
        action: "authenticate",
        data: JSON.stringify(authenticator.authenticate(loginOptions.body.options)),
        csrfToken: await csrf(),
      })
    expect(signedIn.headers.location).toBe(RP_ORIGIN)
    expect((await agent.get("/auth/session").set(host)).body.user.email).toBe("express@example.com")
    db.close()
  })
})

describeWithService(POSTGRES, "passkeys on PostgreSQL", () => {
  passkeySuite(async () => postgresAdapterInFreshSchema("gatehouse_pk", 10))
})

describeWithService(REDIS, "passkeys on Redis", () => {
  passkeySuite(async () => {
    const prefix = `gatehouse-pk-${randomSuffix()}:`
    const client = new Redis(REDIS_URL, { lazyConnect: true })
    await client.connect()
    return {
      adapter: RedisAdapter(client, { prefix }),
      teardown: async () => {
        let cursor = "0"
        do {
          const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
          if (keys.length > 0) await client.del(...keys)
          cursor = next
        } while (cursor !== "0")
        await client.quit()
      },
    }
  })
})
