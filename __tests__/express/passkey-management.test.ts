// The management functions of the Express initializer: listAuthenticators, renameAuthenticator, deleteAuthenticator
// on the session of the request, with ownership checked (a foreign id throws NotFound, status 404).
import express from "express"
import request from "supertest"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { Gatehouse } from "../../lib/express"
import { NotFound } from "../../lib/errors"
import { newAuthenticator, passkeyConfig, RP_ORIGIN } from "../core/webauthn/harness"

function app() {
  const { config } = passkeyConfig(MemoryAdapter())
  const gatehouse = Gatehouse(config)
  const server = express()
  server.use(express.json())
  server.use("/auth", gatehouse.handlers)
  server.get("/me/passkeys", async (req, res) => void res.json(await gatehouse.listAuthenticators(req)))
  server.post("/me/passkeys/:id/rename", (req, res, next) => {
    gatehouse
      .renameAuthenticator(req, res, String(req.params.id), String(req.body.name))
      .then((item) => res.json(item), next)
  })
  server.post("/me/passkeys/:id/delete", (req, res, next) => {
    gatehouse.deleteAuthenticator(req, res, String(req.params.id)).then(() => res.json({ ok: true }), next)
  })
  server.use((err: Error & { status?: number }, _req: express.Request, res: express.Response, _next: unknown) => {
    res.status(err.status ?? 500).json({ error: err instanceof NotFound ? "NotFound" : err.name })
  })
  return server
}

async function signUp(server: express.Express, email: string) {
  const agent = request.agent(server)
  const host = { Host: "localhost:3000" }
  const authenticators = [newAuthenticator(), newAuthenticator()]
  for (const [i, authenticator] of authenticators.entries()) {
    const query = i === 0 ? `?action=register&email=${encodeURIComponent(email)}` : "?action=register"
    const options = await agent.get(`/auth/webauthn-options/passkey${query}`).set(host)
    const csrfToken = (await agent.get("/auth/csrf").set(host)).body.csrfToken as string
    const done = await agent
      .post("/auth/callback/passkey")
      .set(host)
      .type("form")
      .send({ action: "register", data: JSON.stringify(authenticator.register(options.body.options)), csrfToken })
    expect(done.headers.location).toBe(RP_ORIGIN)
  }
  return { agent, host, authenticators }
}

describe("Gatehouse(config) passkey management (Express)", () => {
  it("lists, renames and deletes the signed-in user's passkeys; another user's id is NotFound", async () => {
    const server = app()
    const a = await signUp(server, "a@example.com")
    const b = await signUp(server, "b@example.com")

    const listed = await a.agent.get("/me/passkeys").set(a.host)
    expect(listed.status).toBe(200)
    expect(listed.body.map((p: { id: string }) => p.id).sort()).toEqual(a.authenticators.map((x) => x.id).sort())
    expect(JSON.stringify(listed.body)).not.toMatch(/publicKey|counter/)

    const id = a.authenticators[0]?.id as string
    const renamed = await a.agent.post(`/me/passkeys/${id}/rename`).set(a.host).send({ name: "Phone" })
    expect(renamed.body).toMatchObject({ id, name: "Phone" })

    const foreign = await a.agent.post(`/me/passkeys/${b.authenticators[0]?.id}/delete`).set(a.host).send({})
    expect(foreign.status).toBe(404)
    expect(foreign.body).toEqual({ error: "NotFound" })
    expect((await b.agent.get("/me/passkeys").set(b.host)).body).toHaveLength(2)

    const deleted = await a.agent.post(`/me/passkeys/${id}/delete`).set(a.host).send({})
    expect(deleted.body).toEqual({ ok: true })
    expect((await a.agent.get("/me/passkeys").set(a.host)).body).toHaveLength(1)
    expect((await request(server).get("/me/passkeys").set(a.host)).body).toBeNull()
  })
})
