// The management functions of the Fetch initializer (gatehouse-auth/web) on the session of a Web Request.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { LastCredential, NotFound } from "../../lib/errors"
import { Gatehouse } from "../../lib/web"
import { Client, newAuthenticator, passkeyConfig, RP_ORIGIN } from "../core/webauthn/harness"

const asRequest = (client: Client): Request =>
  new Request(`${RP_ORIGIN}/account`, {
    headers: {
      cookie: Object.entries(client.cookies)
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
        .join("; "),
    },
  })

describe("Gatehouse(config) passkey management (web)", () => {
  it("lists, renames and deletes the user's passkeys; a foreign id is NotFound; the last one is LastCredential", async () => {
    const { config } = passkeyConfig(MemoryAdapter())
    const web = Gatehouse(config)
    const a = new Client(config)
    const first = newAuthenticator()
    const second = newAuthenticator()
    await a.register(first, "email=web-a%40example.com")
    await a.register(second)
    const b = new Client(config)
    const other = newAuthenticator()
    await b.register(other, "email=web-b%40example.com")

    const listed = await web.listAuthenticators(asRequest(a))
    expect(listed?.map((p) => p.id).sort()).toEqual([first.id, second.id].sort())
    expect(await web.listAuthenticators(new Request(`${RP_ORIGIN}/account`))).toBeNull()

    expect(await web.renameAuthenticator(asRequest(a), first.id, "Laptop")).toMatchObject({
      id: first.id,
      name: "Laptop",
    })
    await expect(web.deleteAuthenticator(asRequest(a), other.id)).rejects.toBeInstanceOf(NotFound)
    await expect(web.renameAuthenticator(asRequest(a), other.id, "x")).rejects.toMatchObject({ status: 404 })
    await web.deleteAuthenticator(asRequest(a), second.id)
    expect((await web.listAuthenticators(asRequest(a)))?.map((p) => p.id)).toEqual([first.id])
    await expect(web.deleteAuthenticator(asRequest(a), first.id)).rejects.toBeInstanceOf(LastCredential)
  })
})
