// Parity with Auth.js (`@auth/core` 0.41.3): every provider id both ship, built with the same options, has the same
// effective endpoints, scope, client settings and checks, and maps a profile to the same account id and email. The
// Auth.js side is recorded from the real package by scripts/authjs-snapshot.ts; the deviations below are the complete
// list of what may differ, each to the value given.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { providers } from "../../lib/catalog"
import type { OAuthConfig } from "../../lib/providers/types"
import { profileFixture, resolveOne } from "./support/describe-provider"
import { parityOptions } from "./support/parity-options"

interface AuthjsProvider {
  type: string
  issuer: string | null
  authorization: string | null
  token: string | null
  userinfo: string | null
  scope: string
  checks: string[]
  clientAuth: string
  idTokenAlg: string | null
  /** By fixture name (`<id>`, or a variant `<id>--<case>`). */
  profiles: Record<string, { id: string; name: unknown; email: unknown; image: unknown }>
}

const snapshot = JSON.parse(readFileSync(join(__dirname, "../fixtures/authjs/providers.json"), "utf8")) as {
  authjs: string
  providers: Record<string, AuthjsProvider>
}

type Field = "authorization" | "token" | "userinfo" | "scope" | "clientAuth" | "name" | "image" | "id" | "email"

/** The deviations from Auth.js, the only differences allowed: provider → field → Gatehouse's value. */
const DEVIATIONS: Record<string, Partial<Record<Field, string>>> = {
  discord: { authorization: "https://discord.com/oauth2/authorize" },
  facebook: {
    authorization: "https://www.facebook.com/v21.0/dialog/oauth",
    token: "https://graph.facebook.com/v21.0/oauth/access_token",
    userinfo: "https://graph.facebook.com/v21.0/me?fields=id,name,email,picture",
    clientAuth: "client_secret_post",
  },
  patreon: {
    userinfo: "https://www.patreon.com/api/oauth2/v2/identity?fields[user]=email,full_name,image_url",
    clientAuth: "client_secret_post",
  },
  strava: { authorization: "https://www.strava.com/oauth/authorize", token: "https://www.strava.com/oauth/token" },
  zoom: { scope: "user:read:user" },
  atlassian: {
    authorization: "https://auth.atlassian.com/authorize?audience=api.atlassian.com&prompt=consent",
    clientAuth: "client_secret_post",
  },
  osu: { clientAuth: "client_secret_post" },
  instagram: {
    authorization: "https://www.instagram.com/oauth/authorize",
    scope: "instagram_business_basic",
    userinfo: "https://graph.instagram.com/v21.0/me?fields=user_id,username,name,profile_picture_url",
    image: "profile_picture_url",
  },
  reddit: { image: "icon_img" },
  // The `email` scope exists so that the profile has an address, which Auth.js's Bitbucket never maps.
  bitbucket: { scope: "account email", email: "primary of /user/emails" },
  // WeChat's documented token request: a GET whose query carries appid and secret, which the factory's fetch builds
  // from a client_secret_post body (Auth.js puts both in the token URL and posts).
  wechat: { token: "https://api.weixin.qq.com/sns/oauth2/access_token", clientAuth: "client_secret_post" },
}

/** Parameters the engine pins itself, never compared. */
const PINNED = [
  "client_id",
  "redirect_uri",
  "response_type",
  "state",
  "nonce",
  "code_challenge",
  "code_challenge_method",
]

/** Origin, path and query of a URL (scope and pinned parameters apart, query keys sorted), decoded. */
function shape(url: string | null | undefined): string | null {
  if (!url) return null
  const u = new URL(url)
  const query = [...u.searchParams]
    .filter(([k]) => k !== "scope" && !PINNED.includes(k))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join("&")
  return decodeURIComponent(`${u.origin}${u.pathname}${query ? `?${query}` : ""}`)
}

const scopes = (scope: string) => [...new Set(scope.split(/[\s+]+/).filter(Boolean))].sort().join(" ")

const shared = providers.filter((p) => p.authjs).map((p) => p.id)

test("PR3: the snapshot is @auth/core 0.41.3 and covers every id both ship, each with a profile", () => {
  expect(snapshot.authjs).toBe("0.41.3")
  expect(Object.keys(snapshot.providers).sort()).toEqual([...shared].sort())
  expect(shared.length).toBeGreaterThanOrEqual(50)
  for (const id of shared) expect(Object.keys(snapshot.providers[id]?.profiles ?? {})).toContain(id)
  expect(Object.keys(snapshot.providers.apple?.profiles ?? {})).toEqual(["apple--first-sign-in", "apple"])
})

describe.each(shared)("%s", (id) => {
  const authjs = snapshot.providers[id] as AuthjsProvider
  const load = async () =>
    ((await import(join(__dirname, "../../lib/providers", id))) as { default: (o: object) => OAuthConfig }).default
  const allowed = DEVIATIONS[id] ?? {}

  test(`PR3: ${id} has Auth.js's type, issuer or URLs, scope, client auth, ID-token alg and checks`, async () => {
    const ours = resolveOne((await load())(parityOptions(id)))
    const mismatches: string[] = []
    const compare = (field: Field | "type" | "issuer" | "idTokenAlg", mine: unknown, theirs: unknown) => {
      if (mine === theirs) return
      const deviation = allowed[field as Field]
      if (deviation !== undefined && (mine === deviation || mine === shape(deviation) || mine === scopes(deviation))) {
        return
      }
      mismatches.push(`${field}: ${JSON.stringify(mine)} ≠ Auth.js ${JSON.stringify(theirs)}`)
    }
    compare("type", ours.type, authjs.type)
    if (authjs.type === "oidc") compare("issuer", ours.issuer ?? null, authjs.issuer)
    else {
      const authorization = ours.authorization.url ? new URL(ours.authorization.url) : undefined
      for (const [k, v] of Object.entries(ours.authorization.params)) authorization?.searchParams.set(k, v)
      compare("authorization", shape(authorization?.href), shape(authjs.authorization))
      compare("token", shape(ours.token.url), shape(authjs.token))
      compare("userinfo", shape(ours.userinfo.url), shape(authjs.userinfo))
    }
    const url = new URL(ours.authorization.url ?? "https://discovered.invalid/")
    const scope = ours.authorization.params.scope ?? url.searchParams.get("scope") ?? ""
    compare("scope", scopes(scope), scopes(authjs.scope))
    compare("clientAuth", ours.client.token_endpoint_auth_method ?? "client_secret_basic", authjs.clientAuth)
    compare("idTokenAlg", ours.client.id_token_signed_response_alg ?? null, authjs.idTokenAlg)
    for (const check of authjs.checks.filter((c) => c === "state" || c === "nonce")) {
      if (!ours.checks.includes(check)) mismatches.push(`checks: ${check} missing`)
    }
    expect(mismatches).toEqual([])
  })

  for (const [fixture, expected] of Object.entries(authjs.profiles)) {
    test(`PR4: ${id} maps the ${fixture} fixture to Auth.js's account id and email`, async () => {
      const ours = resolveOne((await load())(parityOptions(id)))
      const user = await ours.profile(profileFixture(fixture), { access_token: "at", token_type: "bearer" })
      if (allowed.id === undefined) expect(String(user.id)).toBe(expected.id)
      if (allowed.email === undefined) expect(user.email ?? null).toBe(expected.email)
      if (allowed.name === undefined) expect(user.name ?? null).toBe(expected.name)
      if (allowed.image === undefined) expect(user.image ?? null).toBe(expected.image)
    })
  }
})
