// tokens.md T1.4 meets passwords.md: the password sign-in answers a session token with X-Auth-Return-Token: 1 (JSON,
// no cookie), and an unverified address is 403 EmailNotVerified. Written here because tokens landed second.
import request from "supertest"
import { passwordApp, seedUser, type PasswordApp } from "../password/harness"

let app: PasswordApp
beforeAll(async () => {
  app = await passwordApp({
    config: { session: { strategy: "jwt", bearer: true } },
    password: { requireEmailVerification: true },
  })
})
afterAll(async () => app.close())

test("T1-1 (password) POST /auth/callback/password with X-Auth-Return-Token: the token in JSON; refusals in JSON", async () => {
  await seedUser(app, "ada@example.test", "correct horse battery staple")
  const ok = await request(app.server)
    .post("/auth/callback/password")
    .set("X-Auth-Return-Token", "1")
    .send({ email: "ada@example.test", password: "correct horse battery staple" })
  expect(ok.status).toBe(200)
  expect(ok.headers["set-cookie"]).toBeUndefined()
  expect(ok.headers["cache-control"]).toContain("no-store")
  const session = await request(app.server).get("/auth/session").set("Authorization", `Bearer ${ok.body.token}`)
  expect(session.body.user.email).toBe("ada@example.test")

  const wrong = await request(app.server)
    .post("/auth/callback/password")
    .set("X-Auth-Return-Token", "1")
    .type("form")
    .send({ email: "ada@example.test", password: "wrong wrong wrong wrong" })
  expect(wrong.status).toBe(401)
  expect(wrong.body).toEqual({ error: "CredentialsSignin", code: "credentials" })
  expect(wrong.headers["set-cookie"]).toBeUndefined()

  await seedUser(app, "bea@example.test", "another long passphrase here", { verified: false })
  const unverified = await request(app.server)
    .post("/auth/callback/password")
    .set("X-Auth-Return-Token", "1")
    .send({ email: "bea@example.test", password: "another long passphrase here" })
  expect(unverified.status).toBe(403)
  expect(unverified.body).toEqual({ error: "EmailNotVerified" })
})

test("T1.2 (password) a bearer changes its password without CSRF; the re-issued session comes back in X-Auth-Token", async () => {
  await seedUser(app, "cy@example.test", "first long passphrase here")
  const signIn = await request(app.server)
    .post("/auth/callback/password")
    .set("X-Auth-Return-Token", "1")
    .send({ email: "cy@example.test", password: "first long passphrase here" })
  const old = signIn.body.token as string
  const changed = await request(app.server)
    .post("/auth/change-password")
    .set("Authorization", `Bearer ${old}`)
    .set("Accept", "application/json")
    .send({
      currentPassword: "first long passphrase here",
      newPassword: "second long passphrase here",
      revokeOtherSessions: true,
    })
  expect(changed.status).toBe(200)
  expect(changed.headers["set-cookie"]).toBeUndefined()
  const fresh = changed.headers["x-auth-token"] as string
  expect(typeof fresh).toBe("string")
  const read = await request(app.server).get("/auth/session").set("Authorization", `Bearer ${fresh}`)
  expect(read.body.user.email).toBe("cy@example.test")
  const stale = await request(app.server).get("/auth/session").set("Authorization", `Bearer ${old}`)
  expect(stale.body).toBeNull()
})
