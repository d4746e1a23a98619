// TikTok: configuration and profile mapping (the catalogue's unit test of this provider).
import TikTok from "../../lib/providers/tiktok"
import { customFetch } from "../../lib/symbols"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: TikTok,
  id: "tiktok",
  name: "TikTok",
  type: "oauth",
  authorization: "https://www.tiktok.com/v2/auth/authorize?client_key=client-123",
  token: "https://open.tiktokapis.com/v2/oauth/token/",
  userinfo: "https://open.tiktokapis.com/v2/user/info/?fields=open_id,avatar_url,display_name",
  scope: "user.info.basic",
  clientAuth: "client_secret_post",
  user: {
    id: "723f24d7-e717-40f8-a2b6-cb8464cd23b4",
    name: "Tik Toker",
    email: null,
    image: "https://p16-sign.tiktokcdn-us.com/avatar.jpeg",
  },
})

test("tiktok: the token request carries client_key beside client_id", async () => {
  const bodies: URLSearchParams[] = []
  const original = globalThis.fetch
  globalThis.fetch = (async (_url: string, init: RequestInit) => {
    bodies.push(new URLSearchParams(init.body as URLSearchParams))
    return Response.json({ access_token: "at", token_type: "Bearer" })
  }) as unknown as typeof fetch
  try {
    const tiktokFetch = TikTok()[customFetch] as typeof fetch
    const body = new URLSearchParams({ grant_type: "authorization_code", code: "c", client_id: "ck-1" })
    await tiktokFetch("https://open.tiktokapis.com/v2/oauth/token/", { method: "POST", body })
    await tiktokFetch("https://open.tiktokapis.com/v2/user/info/", { headers: {} })
  } finally {
    globalThis.fetch = original
  }
  expect(bodies[0]?.get("client_key")).toBe("ck-1")
  expect(bodies[0]?.get("client_id")).toBe("ck-1")
})
