/**
 * The package the benchmarks measure: the build in dist/ (its ESM entries, imported by name through the package's
 * `exports`), which is what an app installs. Not the TypeScript sources: run through tsx they carry a name-keeping
 * helper call for every closure created, which cost a `requireAuth` route 15-20 µs per request on a 2-core VM
 * (bench/README.md, "What runs"). Types still come from lib/, so a typecheck needs no build.
 */
import { existsSync, readdirSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import type * as Root from "../lib"
import type * as Jwt from "../lib/jwt"
import type * as CredentialsEntry from "../lib/providers/credentials"
import type * as NodemailerEntry from "../lib/providers/nodemailer"
import type * as PostgresEntry from "../lib/storage/postgres/adapter"
import type * as SQLiteEntry from "../lib/storage/sqlite/adapter"
import type * as RedisEntry from "../lib/storage/redis/adapter"

/**
 * The package root, whatever the working directory (tsx runs the bench as CommonJS, so `__dirname` is defined):
 * `import("gatehouse-auth")` resolves from it.
 */
export const ROOT = resolve(__dirname, "..")

/** The newest modification time of a file under `dir`, in milliseconds. */
function newest(dir: string): number {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

/** Throws unless dist/ holds a build of the current lib/ (the bench npm scripts build first). */
function assertBuilt(): void {
  const built = join(ROOT, "dist", "index.mjs")
  if (!existsSync(built)) throw new Error("dist/ is missing: run `npm run build` first (the npm bench scripts do)")
  if (newest(join(ROOT, "lib")) > statSync(built).mtimeMs) {
    throw new Error("dist/ is older than lib/: run `npm run build` first (the npm bench scripts do)")
  }
}

// A specifier in a variable: the import stays a real `import()` of the built ESM entry, typed from lib/ below.
const load = (specifier: string): Promise<unknown> => import(specifier)

/**
 * One more entry of the built package, for a measurement that needs an entry {@link loadPackage} does not load.
 *
 * @example
 * ```ts
 * const core = (await loadEntry("gatehouse-auth/core")) as typeof import("../lib/core")
 * ```
 */
export function loadEntry(specifier: `gatehouse-auth/${string}`): Promise<unknown> {
  assertBuilt()
  return load(specifier)
}

export interface Package {
  requireAuth: typeof Root.requireAuth
  ExpressAuth: typeof Root.ExpressAuth
  jwt: Pick<typeof Jwt, "encode" | "decode" | "getToken">
  Credentials: typeof CredentialsEntry.default
  Nodemailer: typeof NodemailerEntry.default
  PostgresAdapter: typeof PostgresEntry.PostgresAdapter
  migrate: typeof PostgresEntry.migrate
  SQLiteAdapter: typeof SQLiteEntry.SQLiteAdapter
  RedisAdapter: typeof RedisEntry.RedisAdapter
}

let loaded: Promise<Package> | undefined

/**
 * Loads the built package once per process.
 *
 * @example
 * ```ts
 * const { requireAuth } = await loadPackage()
 * ```
 */
export function loadPackage(): Promise<Package> {
  loaded ??= (async () => {
    assertBuilt()
    const [root, jwt, credentials, nodemailer, postgres, sqlite, redis] = (await Promise.all([
      load("gatehouse-auth"),
      load("gatehouse-auth/jwt"),
      load("gatehouse-auth/providers/credentials"),
      load("gatehouse-auth/providers/nodemailer"),
      load("gatehouse-auth/adapters/postgres"),
      load("gatehouse-auth/adapters/sqlite"),
      load("gatehouse-auth/adapters/redis"),
    ])) as [
      typeof Root,
      typeof Jwt,
      typeof CredentialsEntry,
      typeof NodemailerEntry,
      typeof PostgresEntry,
      typeof SQLiteEntry,
      typeof RedisEntry,
    ]
    return {
      requireAuth: root.requireAuth,
      ExpressAuth: root.ExpressAuth,
      jwt: { encode: jwt.encode, decode: jwt.decode, getToken: jwt.getToken },
      Credentials: credentials.default,
      Nodemailer: nodemailer.default,
      PostgresAdapter: postgres.PostgresAdapter,
      migrate: postgres.migrate,
      SQLiteAdapter: sqlite.SQLiteAdapter,
      RedisAdapter: redis.RedisAdapter,
    }
  })()
  return loaded
}
