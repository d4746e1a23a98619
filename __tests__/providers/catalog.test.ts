// gatehouse-auth/catalog: the catalogue as data, the provider files it names, the generated table, and the values
// pinned for the providers Auth.js lacks.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { providers } from "../../lib/catalog"
import type { OAuthConfig } from "../../lib/providers/types"
import DocuSign from "../../lib/providers/docusign"
import MicrosoftEntraID from "../../lib/providers/microsoft-entra-id"
import Orcid from "../../lib/providers/orcid"
import PayPal from "../../lib/providers/paypal"
import VK from "../../lib/providers/vk"
import { catalogProblems, providerFiles, renderCatalogTable, withTable } from "../../scripts/catalog"
import { profileFixture, resolveOne } from "./support/describe-provider"

type Factory = (options?: object) => OAuthConfig

/** The 62 ids of the catalogue: today's 29 and the 33 added, written out so that a dropped one fails. */
const IDS = [
  "apple", "atlassian", "auth0", "authentik", "bitbucket", "cognito", "discord", "dropbox", "facebook", "github",
  "gitlab", "google", "keycloak", "linkedin", "microsoft-entra-id", "notion", "okta", "osu", "patreon", "reddit",
  "salesforce", "slack", "spotify", "strava", "twitch", "twitter", "yandex", "zitadel", "zoom",
  "line", "kakao", "naver", "vk", "tiktok", "wechat", "hubspot", "figma", "huggingface", "roblox",
  "onelogin", "instagram", "descope", "ping-id", "42-school", "battlenet", "pinterest", "wordpress", "azure-ad-b2c",
  "paypal", "kick", "vercel", "linear", "docusign", "amazon", "snapchat", "orcid", "yahoo",
  "mailru", "box", "mastodon", "fusionauth", "workos",
] // prettier-ignore

const importFactory = async (id: string) =>
  ((await import(join(__dirname, "../../lib/providers", id))) as { default: Factory }).default

describe("PR1 catalogue", () => {
  test("PR1: the 62 ids import as factories building that id, with type oauth or oidc", async () => {
    expect(new Set(IDS).size).toBe(62)
    for (const id of IDS) {
      const factory = await importFactory(id)
      expect(typeof factory).toBe("function")
      const built = factory({})
      expect(built.id).toBe(id)
      expect(["oauth", "oidc"]).toContain(built.type)
    }
  })

  test("PR1: gatehouse-auth/catalog lists at least 60 importable OAuth/OIDC entries with unique ids", async () => {
    expect(providers.length).toBeGreaterThanOrEqual(60)
    expect(new Set(providers.map((p) => p.id)).size).toBe(providers.length)
    expect(providers.map((p) => p.id)).toEqual([...IDS].sort())
    for (const entry of providers) {
      expect(entry.name).toEqual(expect.any(String))
      expect(typeof entry.authjs).toBe("boolean")
      expect(typeof entry.betterAuth).toBe("boolean")
      expect(new URL(entry.docs).protocol).toBe("https:")
      const built = (await importFactory(entry.id))({})
      expect({ id: built.id, name: built.name, type: built.type }).toEqual({
        id: entry.id,
        name: entry.name,
        type: entry.type,
      })
      if (entry.issuer) expect(built.issuer).toBe(entry.issuer)
    }
  })

  test("PR1: the non-OAuth providers and the generic oidc are not counted", () => {
    const ids = providers.map((p) => p.id)
    for (const id of ["credentials", "email", "nodemailer", "webauthn", "passkey", "password", "oidc"]) {
      expect(ids).not.toContain(id)
    }
  })

  test("PR1: every provider file has an entry and every entry a file", () => {
    expect(providerFiles()).toEqual(providers.map((p) => p.id))
  })
})

describe("PR2 README tables", () => {
  test("PR2: the catalog:begin/end block has one row per entry, the id in backticks first, and is current", () => {
    expect(catalogProblems()).toEqual([])
    const rows = renderCatalogTable(providers).split("\n").slice(2)
    expect(rows).toHaveLength(providers.length)
    rows.forEach((row, i) => expect(row.startsWith(`| \`${providers[i]!.id}\` |`)).toBe(true))
  })

  test("PR2: the rp-standards block names RFC 9126, 9449 and 9101, each ❌ for Auth.js and Better Auth", () => {
    const page = readFileSync(join(__dirname, "../../docs/guide/providers/high-security.md"), "utf8")
    const block = /<!-- rp-standards:begin -->\n([\s\S]*?)<!-- rp-standards:end -->/.exec(page)?.[1] ?? ""
    const [header, , ...rows] = block.trim().split("\n")
    expect(header).toBe("| standard | Gatehouse | Auth.js | Better Auth |")
    for (const rfc of ["RFC 9126", "RFC 9449", "RFC 9101"]) {
      const row = rows.find((r) => r.includes(rfc))
      const cells = (row ?? "").split("|").map((c) => c.trim())
      expect(cells[2]).toMatch(/^✅/)
      expect(cells[3]).toBe("❌")
      expect(cells[4]).toMatch(/^❌/)
    }
    for (const name of ["RFC 9207", "private_key_jwt", "JARM", "FAPI 2.0", "back-channel logout"]) {
      expect(rows.some((r) => r.includes(name))).toBe(true)
    }
    // The README states it in one line and links the table.
    const readme = readFileSync(join(__dirname, "../../README.md"), "utf8")
    expect(readme).toContain("No other Node library with a multi-provider catalogue")
    expect(readme).toContain("docs/guide/providers/high-security.md")
  })

  test("PR2: a stale table, a file without an entry and a deviation appear as problems", () => {
    const page = withTable("intro\n<!-- catalog:begin -->\n<!-- catalog:end -->\n", "| stale |")
    expect(catalogProblems(page)).toEqual(["the provider table is stale: run `npm run catalog`"])
    expect(renderCatalogTable(providers)).toContain("≠ Auth.js: scope: `user:read:user`")
  })
})

/** P.3's table: the values of the nine providers Auth.js lacks. */
const pinned: {
  id: string
  type: "oauth" | "oidc"
  urls?: [string, string, string]
  issuer?: string
  scope: string
  auth: "client_secret_basic" | "client_secret_post"
  user: { id: string; name: string | null; email: string | null; image: string | null }
}[] = [
  {
    id: "paypal",
    type: "oauth",
    urls: [
      "https://www.paypal.com/signin/authorize",
      "https://api-m.paypal.com/v1/oauth2/token",
      "https://api-m.paypal.com/v1/identity/openidconnect/userinfo?schema=openid",
    ],
    scope: "openid email profile",
    auth: "client_secret_basic",
    user: {
      id: "https://www.paypal.com/webapps/auth/identity/user/mWq6_1sU85v5EG9yHdPxJRrhGHrnMJ-1PQKtX6pcsmA",
      name: "Lucía Fernández",
      email: "lucia@example.com",
      image: null,
    },
  },
  {
    id: "kick",
    type: "oauth",
    urls: [
      "https://id.kick.com/oauth/authorize",
      "https://id.kick.com/oauth/token",
      "https://api.kick.com/public/v1/users",
    ],
    scope: "user:read",
    auth: "client_secret_post",
    user: {
      id: "4377088",
      name: "streamer",
      email: "streamer@example.com",
      image: "https://files.kick.com/images/user/4377088/profile_image/conversion/abc.webp",
    },
  },
  {
    id: "vercel",
    type: "oauth",
    urls: [
      "https://vercel.com/oauth/authorize",
      "https://api.vercel.com/login/oauth/token",
      "https://api.vercel.com/login/oauth/userinfo",
    ],
    scope: "openid email profile",
    auth: "client_secret_basic",
    user: {
      id: "wv5sFGLKg1bTRvdrXqaGbXLa",
      name: "rauchg-fan",
      email: "dev@example.com",
      image: "https://vercel.com/api/www/avatar/abc",
    },
  },
  {
    id: "linear",
    type: "oauth",
    urls: [
      "https://linear.app/oauth/authorize",
      "https://api.linear.app/oauth/token",
      "https://api.linear.app/graphql",
    ],
    scope: "read",
    auth: "client_secret_post",
    user: {
      id: "2e6eea91-1111-4a1a-9a2a-0123456789ab",
      name: "Kenji Sato",
      email: "kenji@example.com",
      image: "https://public.linear.app/avatars/abc.png",
    },
  },
  {
    id: "docusign",
    type: "oauth",
    urls: [
      "https://account.docusign.com/oauth/auth",
      "https://account.docusign.com/oauth/token",
      "https://account.docusign.com/oauth/userinfo",
    ],
    scope: "signature",
    auth: "client_secret_basic",
    user: { id: "564f7988-e82b-4e0b-a4d7-1e6c5b0e2a11", name: "Grace Hopper", email: "grace@example.com", image: null },
  },
  {
    id: "amazon",
    type: "oauth",
    urls: [
      "https://www.amazon.com/ap/oa",
      "https://api.amazon.com/auth/o2/token",
      "https://api.amazon.com/user/profile",
    ],
    scope: "profile",
    auth: "client_secret_basic",
    user: {
      id: "amzn1.account.AFPF3OVEWXYZ0123456789ABCD",
      name: "Chris Shopper",
      email: "chris@example.com",
      image: null,
    },
  },
  {
    id: "snapchat",
    type: "oauth",
    urls: [
      "https://accounts.snapchat.com/accounts/oauth2/auth",
      "https://accounts.snapchat.com/accounts/oauth2/token",
      "https://kit.snapchat.com/v1/me?query={me{externalId displayName bitmoji{avatar}}}",
    ],
    scope: ["display_name", "bitmoji.avatar", "external_id"]
      .map((n) => `https://auth.snapchat.com/oauth2/api/user.${n}`)
      .join(" "),
    auth: "client_secret_basic",
    user: {
      id: "CAESIPiRBp0e5gLDq7VVurQ3rVdmdbqxpOJWynjyBL/xlo0w",
      name: "Snap User",
      email: null,
      image: "https://sdk.bitmoji.com/render/panel/abc.png",
    },
  },
  {
    id: "orcid",
    type: "oidc",
    issuer: "https://orcid.org",
    scope: "openid",
    auth: "client_secret_basic",
    user: { id: "0000-0002-1825-0097", name: "Josiah Carberry", email: null, image: null },
  },
  {
    id: "yahoo",
    type: "oidc",
    issuer: "https://api.login.yahoo.com",
    scope: "openid email profile",
    auth: "client_secret_basic",
    user: {
      id: "FSVIDUW3D7FSVIDUW3D72F2F",
      name: "Jasmine Smith",
      email: "jasmine@example.com",
      image: "https://s.yimg.com/ag/images/default_user_profile_pic_192sq.jpg",
    },
  },
]

describe("PR5 the 9 new providers", () => {
  test.each(pinned)("PR5: $id has the type, endpoints, scope, client auth and profile() of P.3", async (want) => {
    const factory = await importFactory(want.id)
    const provider = resolveOne(factory({ clientId: "id", clientSecret: "secret" }))
    expect(provider.type).toBe(want.type)
    const scopes = (s: string) => new Set(s.split(" ").filter(Boolean))
    expect(scopes(provider.authorization.params.scope ?? "")).toEqual(scopes(want.scope))
    if (want.urls) {
      const decoded = (u?: string) => (u ? decodeURIComponent(new URL(u).href) : u)
      expect(provider.authorization.url).toBe(want.urls[0])
      expect(decoded(provider.token.url)).toBe(decoded(want.urls[1]))
      expect(decoded(provider.userinfo.url)).toBe(decoded(want.urls[2]))
    } else {
      expect(provider.issuer).toBe(want.issuer)
    }
    expect(provider.client.token_endpoint_auth_method ?? "client_secret_basic").toBe(want.auth)
    expect(await provider.profile(profileFixture(want.id), {})).toStrictEqual(want.user)
  })

  test("PR5: paypal takes the primary address when email is absent; orcid joins given and family names", async () => {
    const paypal = resolveOne(PayPal({ clientId: "id", clientSecret: "s" }))
    const withEmail = { ...profileFixture("paypal"), email: "direct@example.com" }
    expect(await paypal.profile(withEmail, {})).toMatchObject({ email: "direct@example.com" })
    const orcid = resolveOne(Orcid({ clientId: "id", clientSecret: "s" }))
    expect(await orcid.profile({ sub: "0000", name: "Dr J. Carberry" }, {})).toMatchObject({ name: "Dr J. Carberry" })
  })
})

describe("PR6 provider options", () => {
  test('PR6: VK({apiVersion: "5.199"}) puts v=5.199 on all three URLs', () => {
    const vk = resolveOne(VK({ clientId: "id", clientSecret: "s", apiVersion: "5.199" }))
    const authorization = new URL(vk.authorization.url as string)
    for (const [k, v] of Object.entries(vk.authorization.params)) authorization.searchParams.set(k, v)
    for (const url of [authorization.href, vk.token.url, vk.userinfo.url]) {
      expect(new URL(url as string).searchParams.get("v")).toBe("5.199")
    }
    expect(VK().options).not.toHaveProperty("apiVersion")
  })

  test('PR6: PayPal "sandbox", DocuSign "demo" and ORCID "sandbox" switch hosts', () => {
    const paypal = resolveOne(PayPal({ clientId: "id", clientSecret: "s", environment: "sandbox" }))
    expect(new URL(paypal.authorization.url as string).host).toBe("www.sandbox.paypal.com")
    expect(new URL(paypal.token.url as string).host).toBe("api-m.sandbox.paypal.com")
    expect(new URL(paypal.userinfo.url as string).host).toBe("api-m.sandbox.paypal.com")
    const docusign = resolveOne(DocuSign({ clientId: "id", clientSecret: "s", environment: "demo" }))
    for (const url of [docusign.authorization.url, docusign.token.url, docusign.userinfo.url]) {
      expect(new URL(url as string).host).toBe("account-d.docusign.com")
    }
    expect(resolveOne(Orcid({ clientId: "id", clientSecret: "s", environment: "sandbox" })).issuer).toBe(
      "https://sandbox.orcid.org",
    )
  })

  test("PR6: an unknown environment is refused by the factory (invalid_provider_option)", () => {
    for (const make of [
      () => PayPal({ environment: "staging" as never }),
      () => DocuSign({ environment: "sandbox" as never }),
      () => Orcid({ environment: "demo" as never }),
    ]) {
      expect(make).toThrow(expect.objectContaining({ type: "InvalidConfig", code: "invalid_provider_option" }))
    }
  })

  test('PR6: Entra tenantId "contoso.onmicrosoft.com" gives that tenant\'s issuer', () => {
    expect(MicrosoftEntraID({ tenantId: "contoso.onmicrosoft.com" }).issuer).toBe(
      "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0",
    )
  })
})
