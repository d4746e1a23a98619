/**
 * Records what `@auth/core` 0.41.3's providers are, for the parity test: for every id that Gatehouse's catalogue
 * shares with Auth.js, the effective endpoints, scope, checks and client settings after Auth.js's merge of the test
 * options, and what its `profile()` makes of each profile fixture. The test then compares Gatehouse's providers with
 * this record, as the JWT vectors were recorded from the reference.
 *
 * Usage: `npx tsx scripts/authjs-snapshot.ts <path of an unpacked @auth/core 0.41.3>` (for example the `package`
 * folder of `npm pack @auth/core@0.41.3`). It writes __tests__/fixtures/authjs/providers.json (format it with prettier).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { pathToFileURL } from "node:url"
import { providers } from "../lib/catalog"
import { parityOptions } from "../__tests__/providers/support/parity-options"

const root = join(__dirname, "..")
const OUT = join(root, "__tests__/fixtures/authjs/providers.json")

type Config = Record<string, unknown>

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype

/** Auth.js's merge of a provider's `options` over its defaults: plain objects key by key, anything else replaced. */
function merge(target: Config, source: Config | undefined): Config {
  const out: Config = { ...target }
  for (const [key, value] of Object.entries(source ?? {})) {
    out[key] = isObject(value) && isObject(out[key]) ? merge(out[key] as Config, value) : value
  }
  return out
}

function endpoint(value: unknown): { url?: string; params: Record<string, unknown> } {
  if (typeof value === "string") return { url: value, params: {} }
  if (isObject(value)) return { url: value.url as string | undefined, params: (value.params as Config) ?? {} }
  return { params: {} }
}

/** The URL with its params, every value a string, as the request would carry it. */
function fullUrl(value: unknown): string | undefined {
  const { url, params } = endpoint(value)
  if (!url) return undefined
  const out = new URL(url)
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null) out.searchParams.set(k, typeof v === "object" ? JSON.stringify(v) : String(v))
  }
  return out.href
}

/** Auth.js's default profile mapping, for providers without their own. */
function defaultProfile(profile: Config) {
  return {
    id: profile.sub ?? profile.id,
    name: profile.name ?? profile.nickname ?? profile.preferred_username ?? null,
    email: profile.email ?? null,
    image: profile.picture ?? null,
  }
}

async function main(): Promise<void> {
  const dir = process.argv[2]
  if (!dir || !existsSync(join(dir, "providers"))) throw new Error("give the path of an unpacked @auth/core")
  const version = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version
  if (version !== "0.41.3") throw new Error(`expected @auth/core 0.41.3, got ${version}`)
  const record: Record<string, unknown> = {}
  // No network: a profile() that fetches (Auth.js's Entra photo from Microsoft Graph) gets a 404 and goes without.
  globalThis.fetch = (async () => new Response(null, { status: 404 })) as typeof fetch
  for (const entry of providers.filter((p) => p.authjs)) {
    const mod = (await import(pathToFileURL(join(dir, "providers", `${entry.id}.js`)).href)) as {
      default: (options: Config) => Config
    }
    const options = parityOptions(entry.id)
    const built = mod.default({ ...options })
    const merged = merge(built, built.options as Config | undefined)
    const authorization = fullUrl(merged.authorization)
    const { params } = endpoint(merged.authorization)
    const scope =
      (authorization ? new URL(authorization).searchParams.get("scope") : null) ??
      (params.scope as string | undefined) ??
      "openid profile email"
    const client = (merged.client as Config | undefined) ?? {}
    const profiles: Record<string, unknown> = {}
    const fixtureDir = join(root, "__tests__/fixtures/profiles")
    // `<id>.json`, and variants such as `apple--first-sign-in.json`.
    const fixtures = readdirSync(fixtureDir).filter((f) => f === `${entry.id}.json` || f.startsWith(`${entry.id}--`))
    for (const file of fixtures) {
      const sample = JSON.parse(readFileSync(join(fixtureDir, file), "utf8")) as Config
      const tokens = { access_token: "at", token_type: "bearer" }
      const mapped =
        typeof merged.profile === "function" ? await merged.profile(sample, tokens) : defaultProfile(sample)
      const { id, name, email, image } = mapped as Config
      profiles[basename(file, ".json")] = {
        id: id === undefined ? null : String(id),
        name: name ?? null,
        email: email ?? null,
        image: image ?? null,
      }
    }
    record[entry.id] = {
      type: merged.type,
      issuer: merged.issuer ?? null,
      wellKnown: merged.wellKnown ?? null,
      authorization: authorization ?? null,
      token: fullUrl(merged.token) ?? null,
      userinfo: fullUrl(merged.userinfo) ?? null,
      scope,
      checks: merged.checks ?? ["pkce"],
      clientAuth: client.token_endpoint_auth_method ?? "client_secret_basic",
      idTokenAlg: client.id_token_signed_response_alg ?? null,
      profiles,
    }
  }
  writeFileSync(OUT, `${JSON.stringify({ authjs: version, providers: record }, null, 2)}\n`)
  console.log(`wrote ${Object.keys(record).length} providers to ${OUT}`)
}

void main()
