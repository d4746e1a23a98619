// Naver: configuration and profile mapping (the catalogue's unit test of this provider).
import { OAuthProfileParseError } from "../../lib/errors"
import Naver from "../../lib/providers/naver"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Naver,
  id: "naver",
  name: "Naver",
  type: "oauth",
  authorization: "https://nid.naver.com/oauth2.0/authorize",
  token: "https://nid.naver.com/oauth2.0/token",
  userinfo: "https://openapi.naver.com/v1/nid/me",
  scope: "openid profile email",
  user: {
    id: "32742776-aa1b-4c5d-9e8f-0123456789ab",
    name: "seoyeon",
    email: "seoyeon@example.kr",
    image: "https://phinf.pstatic.net/contact/profile.png",
  },
})

describe("naver: errors come as HTTP 200 with a resultcode other than 00", () => {
  const request = (Naver().userinfo as { request: (c: object) => Promise<unknown> }).request
  const answering = (body: object, status = 200) => (async () => Response.json(body, { status })) as typeof fetch

  test("a 00 answer is the profile; the access token goes in the Authorization header", async () => {
    const seen: Headers[] = []
    const fetchImpl = (async (_url: string, init: RequestInit) => {
      seen.push(new Headers(init.headers))
      return Response.json({ resultcode: "00", message: "success", response: { id: "n1" } })
    }) as unknown as typeof fetch
    await expect(request({ tokens: { access_token: "at-1" }, fetch: fetchImpl })).resolves.toMatchObject({
      response: { id: "n1" },
    })
    expect(seen[0]?.get("authorization")).toBe("Bearer at-1")
  })

  test("resultcode 024 (authentication failed) is OAuthProfileParseError, not a profile", async () => {
    const run = request({
      tokens: { access_token: "at" },
      fetch: answering({ resultcode: "024", message: "Authentication failed" }),
    })
    await expect(run).rejects.toThrow(OAuthProfileParseError)
    await expect(run).rejects.toMatchObject({ cause: { resultcode: "024" } })
  })
})
