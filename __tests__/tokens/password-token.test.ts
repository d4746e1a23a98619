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
