/** The adapter cut into feature views: which methods each feature calls, checked once at construction. */
import type { Adapter } from "../../../storage/adapter"
import { MissingAdapter, MissingAdapterMethods } from "../../../errors"
import type { InternalProvider } from "./providers"
import type { AdapterStores } from "./types"

/**
 * The adapter methods each feature calls. Only the features in use are required, so an email + JWT setup needs no
 * session methods. (The reference asserts a fixed set of ten for any database-strategy setup and finds the other
 * gaps at the first request.)
 */
export const requiredAdapterMethods = {
  email: ["createVerificationToken", "useVerificationToken", "getUserByEmail", "createUser", "updateUser"],
  database: ["createSession", "getSessionAndUser", "updateSession", "deleteSession"],
  oauth: ["getUserByAccount", "getUser", "getUserByEmail", "createUser", "linkAccount"],
  credentials: ["getUser", "getUserByEmail", "createUser"],
  webauthn: [
    "createUser",
    "getUser",
    "linkAccount",
    "getAccount",
    "getAuthenticator",
    "createAuthenticator",
    "listAuthenticatorsByUserId",
    "updateAuthenticatorCounter",
    // Registration looks the address up (the reference calls it without asserting it).
    "getUserByEmail",
  ],
  // Database sessions with a back-channel logout provider: the receiver deletes the rows of the named IdP session.
  logout: ["deleteSessionsByIdp"],
  // The Password provider (with database sessions also `deleteSessions`, for revocation).
  password: [
    "createUser",
    "getUser",
    "getUserByEmail",
    "updateUser",
    "getPasswordAccount",
    "setPasswordHash",
    "createVerificationToken",
    "useVerificationToken",
  ],
} as const satisfies Record<string, ReadonlyArray<keyof Adapter>>

/** Methods a view carries when the adapter has them, without requiring them. */
const optionalMethods = {
  management: ["listSessionsByUserId", "deleteSessions", "deleteSession", "deleteUser"],
  logout: ["getAccount", "getUserByAccount", "deleteSessions"],
  // Refresh-token rotation reads the account and writes its tokens (compare-and-swap when the adapter can).
  oauth: ["deleteUser", "transaction", "getAccount", "unlinkAccount", "updateAccountTokens"],
  email: ["deleteUser", "transaction"],
  password: ["transaction"],
  webauthn: [
    "deleteUser",
    "unlinkAccount",
    "deleteAuthenticator",
    "updateAuthenticator",
    "createVerificationToken",
    "useVerificationToken",
    "transaction",
  ],
} as const

type Feature = keyof typeof requiredAdapterMethods

/** The features a config uses, in the order their requirements are reported. */
function featuresOf(providers: readonly InternalProvider[], strategy: string, hasAdapter: boolean): Feature[] {
  const types = new Set(providers.map((p) => p.type))
  const out: Feature[] = []
  if (types.has("email")) {
    if (!hasAdapter) throw new MissingAdapter("Email login requires an adapter")
    out.push("email")
  }
  if (strategy === "database") {
    if (!hasAdapter) throw new MissingAdapter("Database session requires an adapter")
    out.push("database")
    if (types.has("credentials")) out.push("credentials")
    if (providers.some((p) => p.type === "oidc" && p.logout?.backchannel)) out.push("logout")
  }
  if (hasAdapter && (types.has("oauth") || types.has("oidc"))) out.push("oauth")
  if (types.has("webauthn")) {
    if (!hasAdapter) throw new MissingAdapter("WebAuthn requires an adapter")
    out.push("webauthn")
  }
  if (types.has("password")) {
    if (!hasAdapter) throw new MissingAdapter("the Password provider stores users: set `adapter`")
    out.push("password")
  }
  return out
}

/** Copies `methods` (and the optional ones present) off the adapter into a frozen view. */
function view(source: Record<string, unknown>, methods: readonly string[], optional: readonly string[] = []): object {
  const present = optional.filter((m) => typeof source[m] === "function")
  return Object.freeze(Object.fromEntries([...methods, ...present].map((m) => [m, source[m]])))
}

/**
 * Checks the adapter against every feature in use and returns its feature views. Throws `MissingAdapter` when a
 * feature needs an adapter and there is none, and `MissingAdapterMethods` naming every missing method.
 *
 * @example
 * ```ts
 * const stores = adapterStores(adapter, providers, "database")
 * await stores.sessions?.getSessionAndUser(token)
 * ```
 */
export function adapterStores(
  adapter: Adapter | undefined,
  providers: readonly InternalProvider[],
  strategy: string,
): AdapterStores {
  const features = featuresOf(providers, strategy, adapter !== undefined)
  if (!adapter) return {}
  const wanted = [...new Set(features.flatMap((f): readonly string[] => requiredAdapterMethods[f]))]
  const methods: Record<string, unknown> = adapter
  const missing = wanted.filter((m) => typeof methods[m] !== "function")
  const passwordMissing = features.includes("password")
    ? [...requiredAdapterMethods.password, ...(strategy === "database" ? ["deleteSessions"] : [])].filter(
        (m) => typeof methods[m] !== "function",
      )
    : []
  if (passwordMissing.length > 0) {
    throw new MissingAdapterMethods(
      `Required adapter methods were missing: ${passwordMissing.join(", ")}: the Password provider needs them; wrap ` +
        "your adapter or use gatehouse-auth/adapters/*",
      { cause: { missing: passwordMissing, features } },
    )
  }
  if (missing.length > 0) {
    throw new MissingAdapterMethods(`Required adapter methods were missing: ${missing.join(", ")}`, {
      cause: { missing, features },
    })
  }
  const has = (f: Feature) => features.includes(f)
  // Each view is built from the method list its type names; the lists above are checked to exist.
  return {
    ...(has("database") && { sessions: view(methods, requiredAdapterMethods.database) as AdapterStores["sessions"] }),
    ...(has("email") && {
      email: view(methods, requiredAdapterMethods.email, optionalMethods.email) as AdapterStores["email"],
    }),
    ...(has("oauth") && {
      oauth: view(methods, requiredAdapterMethods.oauth, optionalMethods.oauth) as AdapterStores["oauth"],
    }),
    ...(has("credentials") && {
      credentials: view(methods, requiredAdapterMethods.credentials) as AdapterStores["credentials"],
    }),
    management: view(methods, [], optionalMethods.management) as AdapterStores["management"],
    // With a provider that configures OIDC logout. The required method is checked above when back-channel logout
    // deletes database sessions; otherwise it is carried when present.
    ...(providers.some((p) => (p.type === "oidc" || p.type === "oauth") && p.logout) && {
      logout: view(
        methods,
        [],
        [...requiredAdapterMethods.logout, ...optionalMethods.logout],
      ) as AdapterStores["logout"],
    }),
    ...(has("webauthn") && {
      webauthn: view(methods, requiredAdapterMethods.webauthn, optionalMethods.webauthn) as AdapterStores["webauthn"],
    }),
    ...(has("password") && {
      password: view(methods, requiredAdapterMethods.password, optionalMethods.password) as AdapterStores["password"],
    }),
  }
}

/**
 * An optional method of a view, for a path that needs it: a clear `MissingAdapterMethods` instead of a `TypeError`.
 *
 * @example
 * ```ts
 * await need(adapter.updateAuthenticator, "updateAuthenticator")(id, { name })
 * ```
 */
export function need<F>(method: F | undefined, name: string): F {
  if (!method) throw new MissingAdapterMethods("Required adapter methods were missing", { cause: { missing: [name] } })
  return method
}

/**
 * The view of `feature` on a resolved config. Actions reach it only on the paths their feature enables, so a missing
 * view means a config the construction check let through by mistake: fail closed.
 *
 * @example
 * ```ts
 * await store(config, "sessions").deleteSession(token)
 * ```
 */
export function store<K extends keyof AdapterStores>(
  config: { readonly stores: AdapterStores },
  feature: K,
): NonNullable<AdapterStores[K]> {
  const view = config.stores[feature]
  if (!view) throw new MissingAdapter("The configured features require an adapter", { cause: { feature } })
  return view
}
