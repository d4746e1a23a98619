// VK: configuration and profile mapping (the catalogue's unit test of this provider).
import VK from "../../lib/providers/vk"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: VK,
  id: "vk",
  name: "VK",
  type: "oauth",
  authorization: "https://oauth.vk.com/authorize?v=5.131",
  token: "https://oauth.vk.com/access_token?v=5.131",
  userinfo: "https://api.vk.com/method/users.get?fields=photo_100&v=5.131",
  scope: "email",
  clientAuth: "client_secret_post",
  user: {
    id: "210700286",
    name: "Lindsey Stirling",
    email: "lindsey@example.com",
    image: "https://sun1-00.userapi.com/s/v1/ig2/abc.jpg?size=100x100",
  },
})

describe("vk quirks", () => {
  test("the email of the token response is copied into the users.get profile", async () => {
    const urls: string[] = []
    const fetchImpl = (async (url: string) => {
      urls.push(url)
      return Response.json({ response: [{ id: 1, first_name: "Ivan", last_name: "Petrov" }] })
    }) as unknown as typeof fetch
    const request = (VK().userinfo as { request: (c: object) => Promise<Record<string, unknown>> }).request
    const profile = await request({ tokens: { access_token: "at", email: "ivan@example.ru" }, fetch: fetchImpl })
    expect(profile).toMatchObject({ id: 1, email: "ivan@example.ru" })
    expect(await VK().profile!(profile as never, {})).toMatchObject({ id: "1", email: "ivan@example.ru" })
    expect(urls).toEqual(["https://api.vk.com/method/users.get?fields=photo_100&v=5.131"])
  })

  test("without an email in the token response the email is null", async () => {
    const fetchImpl = (async () => Response.json({ response: [{ id: 2 }] })) as unknown as typeof fetch
    const request = (VK().userinfo as { request: (c: object) => Promise<Record<string, unknown>> }).request
    expect(await request({ tokens: { access_token: "at" }, fetch: fetchImpl })).toMatchObject({ email: null })
  })
})
