// The custom userinfo requests of Bitbucket, Dropbox, Reddit, Yandex and Notion, driven through a stub customFetch.
import type { Profile } from "../../lib/core/kernel/types"
import { providerFetch } from "../../lib/oauth/fetch"
import { customFetch } from "../../lib/symbols"
import type { OAuthConfig, TokenSet } from "../../lib/providers/types"
import Bitbucket from "../../lib/providers/bitbucket"
import Dropbox from "../../lib/providers/dropbox"
import Notion from "../../lib/providers/notion"
import Reddit from "../../lib/providers/reddit"
import Yandex from "../../lib/providers/yandex"

interface Seen {
  url: string
  method: string
  headers: Headers
  body: unknown
}

/** A fetch answering JSON by URL, recording every request. */
function stubFetch(routes: Record<string, unknown>, seen: Seen[]): typeof fetch {
  return async (input, init) => {
    const url = String(input)
    seen.push({ url, method: init?.method ?? "GET", headers: new Headers(init?.headers), body: init?.body })
    if (!(url in routes)) return new Response('{"error":"not_found"}', { status: 404 })
    const body = routes[url]
    if (body instanceof Response) return body
    return Response.json(body)
  }
}

const tokens: TokenSet = { access_token: "at-1", token_type: "bearer" }

async function runUserinfo(provider: OAuthConfig<any>, fetchImpl: typeof fetch, set = tokens): Promise<Profile> {
  const { userinfo } = provider
  if (typeof userinfo !== "object" || !("request" in userinfo) || !userinfo.request) throw new Error("no request")
  return userinfo.request({
    tokens: set,
    provider: { ...provider, [customFetch]: fetchImpl } as OAuthConfig,
    fetch: providerFetch({ httpTimeout: 10_000, [customFetch]: fetchImpl }),
  })
}

describe("bitbucket", () => {
  const user = {
    uuid: "{d301aafa-d676-4ee0-88be-962be7417567}",
    display_name: "Erik van Zijst",
    links: { avatar: { href: "https://avatar.example/evz.png" } },
  }
  const emails = (values: unknown[]) => ({ values, pagelen: 10, page: 1, size: values.length })

  it("adds the primary confirmed address from /user/emails", async () => {
    const seen: Seen[] = []
    const profile = await runUserinfo(
      Bitbucket(),
      stubFetch(
        {
          "https://api.bitbucket.org/2.0/user": user,
          "https://api.bitbucket.org/2.0/user/emails": emails([
            { email: "other@example.com", is_primary: false, is_confirmed: true },
            { email: "erik@example.com", is_primary: true, is_confirmed: true },
          ]),
        },
        seen,
      ),
    )
    expect(profile).toStrictEqual({ ...user, email: "erik@example.com" })
    expect(seen.map((s) => s.headers.get("authorization"))).toEqual(["Bearer at-1", "Bearer at-1"])
  })

  it("ignores unconfirmed addresses, even a primary one", async () => {
    const profile = await runUserinfo(
      Bitbucket(),
      stubFetch(
        {
          "https://api.bitbucket.org/2.0/user": user,
          "https://api.bitbucket.org/2.0/user/emails": emails([
            { email: "unconfirmed@example.com", is_primary: true, is_confirmed: false },
            { email: "confirmed@example.com", is_primary: false, is_confirmed: true },
          ]),
        },
        [],
      ),
    )
    expect(profile.email).toBe("confirmed@example.com")
  })

  it("gives a null email when /user/emails fails", async () => {
    const profile = await runUserinfo(Bitbucket(), stubFetch({ "https://api.bitbucket.org/2.0/user": user }, []))
    expect(profile.email).toBeNull()
  })

  it("fails when /user fails", async () => {
    await expect(runUserinfo(Bitbucket(), stubFetch({}, []))).rejects.toThrow("Bitbucket user request failed")
  })
})

describe("dropbox", () => {
  it("POSTs to get_current_account without a body", async () => {
    const seen: Seen[] = []
    const account = { account_id: "dbid:AAH4f99", email: "franz@dropbox.com", name: { display_name: "Franz" } }
    const profile = await runUserinfo(
      Dropbox(),
      stubFetch({ "https://api.dropboxapi.com/2/users/get_current_account": account }, seen),
    )
    expect(profile).toStrictEqual(account)
    expect(seen).toHaveLength(1)
    expect(seen[0].method).toBe("POST")
    expect(seen[0].body).toBeUndefined()
    expect(seen[0].headers.get("authorization")).toBe("Bearer at-1")
  })

  it("fails on an error response", async () => {
    await expect(runUserinfo(Dropbox(), stubFetch({}, []))).rejects.toThrow("Dropbox account request failed")
  })
})

describe("reddit", () => {
  it("GETs /api/v1/me with the token and a User-Agent", async () => {
    const seen: Seen[] = []
    const me = { id: "1w72", name: "spez" }
    const profile = await runUserinfo(Reddit(), stubFetch({ "https://oauth.reddit.com/api/v1/me": me }, seen))
    expect(profile).toStrictEqual(me)
    expect(seen[0].headers.get("authorization")).toBe("Bearer at-1")
    expect(seen[0].headers.get("user-agent")).toBe("gatehouse-auth")
  })
})

describe("yandex", () => {
  it("sends the token with the OAuth scheme", async () => {
    const seen: Seen[] = []
    const info = { id: "1000034426", login: "ivan" }
    const profile = await runUserinfo(Yandex(), stubFetch({ "https://login.yandex.ru/info?format=json": info }, seen))
    expect(profile).toStrictEqual(info)
    expect(seen[0].headers.get("authorization")).toBe("OAuth at-1")
  })
})

describe("notion", () => {
  const owner = {
    type: "user",
    user: {
      object: "user",
      id: "e79a0b74-3aba-4149-9f74-0bb5791a6ee6",
      name: "Avocado Lovelace",
      avatar_url: null,
      type: "person",
      person: { email: "avo@example.org" },
    },
  }
  const tokenResponse: TokenSet = {
    access_token: "secret_abc",
    token_type: "bearer",
    bot_id: "b3414d659-1224-5ty7-6ffr-cc9d8773drt601288f",
    workspace_id: "j565j4d7x3-2882-61bs-564a-jj9d9ui-c36hxfr7x",
    workspace_name: "Ada's Notion Workspace",
    workspace_icon: "https://example.com/icon.png",
    owner,
    duplicated_template_id: null,
  }

  it("reads the profile from owner.user of the token response, with no request", async () => {
    const seen: Seen[] = []
    const provider = Notion()
    const profile = await runUserinfo(provider, stubFetch({}, seen), tokenResponse)
    expect(profile).toStrictEqual(owner.user)
    expect(seen).toHaveLength(0)
    expect(await provider.profile!(profile as never, tokenResponse)).toStrictEqual({
      id: "e79a0b74-3aba-4149-9f74-0bb5791a6ee6",
      name: "Avocado Lovelace",
      email: "avo@example.org",
      image: null,
    })
  })

  it("rejects a token response owned by a workspace", async () => {
    await expect(
      runUserinfo(Notion(), stubFetch({}, []), { ...tokenResponse, owner: { type: "workspace", workspace: true } }),
    ).rejects.toThrow("Notion token response has no owner user")
  })
})
