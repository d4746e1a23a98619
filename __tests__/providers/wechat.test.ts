// WeChat: configuration and profile mapping (the catalogue's unit test of this provider).
import WeChat from "../../lib/providers/wechat"
import { customFetch } from "../../lib/symbols"
import { describeProvider, resolveOne } from "./support/describe-provider"

describeProvider({
  factory: WeChat,
  id: "wechat",
  name: "WeChat",
  type: "oauth",
  authorization: "https://open.weixin.qq.com/connect/oauth2/authorize?appid=client-123",
  token: "https://api.weixin.qq.com/sns/oauth2/access_token",
  userinfo: "https://api.weixin.qq.com/sns/userinfo",
  scope: "snsapi_userinfo",
  clientAuth: "client_secret_post",
  checks: ["state"],
  user: {
    id: "o6_bmasdasdsad6_2sgVt7hMZOPfL",
    name: "小明",
    email: null,
    image:
      "https://thirdwx.qlogo.cn/mmopen/g3MonUZtNHkdmzicIlibx6iaFqAc56vxLSUfpb6n5WKSYVY0ChQKkiaJSgQ1dZuTOgvLLrhJbERQQ4eMsv84eavHiaiceqxibJxCfHe/46",
  },
})

describe("wechat quirks", () => {
  test("the userinfo call gets the openid of the token response", async () => {
    const urls: URL[] = []
    const fetchImpl = (async (url: URL) => {
      urls.push(new URL(url))
      return Response.json({ openid: "o-1", nickname: "n" })
    }) as unknown as typeof fetch
    const request = (WeChat().userinfo as { request: (c: object) => Promise<Record<string, unknown>> }).request
    await request({ tokens: { access_token: "at-1", openid: "o-1" }, fetch: fetchImpl })
    expect(urls[0]?.searchParams.get("openid")).toBe("o-1")
    expect(urls[0]?.searchParams.get("access_token")).toBe("at-1")
  })

  test("an answer with errcode is an error, not a profile", async () => {
    const fetchImpl = (async () =>
      Response.json({ errcode: 40003, errmsg: "invalid openid" })) as unknown as typeof fetch
    const request = (WeChat().userinfo as { request: (c: object) => Promise<unknown> }).request
    await expect(request({ tokens: { access_token: "at", openid: "x" }, fetch: fetchImpl })).rejects.toThrow()
  })

  test("without unionid the account id is the openid", async () => {
    expect(await WeChat().profile!({ openid: "o-only" }, {})).toMatchObject({ id: "o-only" })
  })

  test("the token response gets the token_type WeChat leaves out", async () => {
    const conform = (WeChat().token as { conform: (r: Response) => Promise<Response> }).conform
    const out = await conform(Response.json({ access_token: "at", openid: "o", expires_in: 7200 }))
    expect(await out.json()).toEqual({ access_token: "at", openid: "o", expires_in: 7200, token_type: "bearer" })
  })

  test("platformType WebsiteApp uses the QR connect page and snsapi_login", () => {
    const provider = resolveOne(WeChat({ clientId: "wx1", clientSecret: "s", platformType: "WebsiteApp" }))
    expect(provider.authorization.url).toBe("https://open.weixin.qq.com/connect/qrconnect")
    expect(provider.authorization.params).toMatchObject({ scope: "snsapi_login", appid: "wx1" })
  })

  test("the token request becomes WeChat's GET with appid and secret in the query", async () => {
    const seen: { url: string; method?: string; body?: unknown }[] = []
    const original = globalThis.fetch
    globalThis.fetch = (async (url: URL, init: RequestInit) => {
      seen.push({ url: String(url), method: init.method, body: init.body })
      return Response.json({ access_token: "at" })
    }) as unknown as typeof fetch
    try {
      const wechatFetch = WeChat()[customFetch] as typeof fetch
      const body = new URLSearchParams({
        grant_type: "authorization_code",
        code: "c1",
        client_id: "wx1",
        client_secret: "s1",
      })
      await wechatFetch("https://api.weixin.qq.com/sns/oauth2/access_token", { method: "POST", body })
    } finally {
      globalThis.fetch = original
    }
    expect(seen).toHaveLength(1)
    expect(seen[0]?.method).toBe("GET")
    expect(seen[0]?.body).toBeUndefined()
    const url = new URL(seen[0]!.url)
    expect(Object.fromEntries(url.searchParams)).toEqual({
      appid: "wx1",
      secret: "s1",
      code: "c1",
      grant_type: "authorization_code",
    })
  })
})
