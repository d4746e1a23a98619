// Builds dist/: ESM (.mjs + .d.mts) and CommonJS (.js + .d.ts) for every entry of package.json's `exports` map.
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { defineConfig } from "tsup"
import type { Options } from "tsup"

interface PackageJson {
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as PackageJson

/**
 * ESM-only runtime dependencies. A CommonJS consumer (and its jest suite, which has no ESM support without flags)
 * cannot `require()` them on Node 20, so the CommonJS build carries its own copy; the ESM build imports them.
 */
export const esmOnlyDependencies = ["jose", "oauth4webapi"]

/**
 * Never bundled, in either format: runtime dependencies (installed with the package), peers (express and the optional
 * drivers, whichever of them the app installs) and every dev dependency, so a driver imported by an adapter can never
 * end up inside dist/ by accident. Only `esmOnlyDependencies` are taken back in, for the CommonJS build alone.
 */
const alwaysExternal = [
  "express",
  "pg",
  "ioredis",
  "better-sqlite3",
  "nodemailer",
  "@simplewebauthn/server",
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
  ...Object.keys(pkg.optionalDependencies ?? {}),
  ...Object.keys(pkg.devDependencies ?? {}),
]

/** `lib/<dir>/*.ts` except `types.ts` and declaration files, as `{ "<dir>/<name>": "lib/<dir>/<name>.ts" }`. */
function filesIn(dir: string): Record<string, string> {
  const path = join("lib", dir)
  if (!existsSync(path)) return {}
  const entries: Record<string, string> = {}
  for (const file of readdirSync(path).sort()) {
    if (!file.endsWith(".ts") || file.endsWith(".d.ts") || file === "types.ts") continue
    entries[`${dir}/${file.slice(0, -3)}`] = join(path, file)
  }
  return entries
}

/**
 * The storage entries: each driver folder `lib/storage/<driver>/` gives `adapters/<driver>` (its `adapter.ts`) and
 * `store/<driver>` (its `store.ts`), the package's `./adapters/*` and `./store/*` exports.
 */
function storageEntries(): Record<string, string> {
  const entries: Record<string, string> = {}
  for (const driver of readdirSync(join("lib", "storage")).sort()) {
    const folder = join("lib", "storage", driver)
    if (driver === "internal" || !statSync(folder).isDirectory()) continue
    for (const [file, entry] of [
      ["adapter.ts", "adapters"],
      ["store.ts", "store"],
    ] as const) {
      if (existsSync(join(folder, file))) entries[`${entry}/${driver}`] = join(folder, file)
    }
  }
  return entries
}

/**
 * The entry points that exist right now, named after their dist/ file (`core` -> dist/core.js). Computed on every
 * build, so an entry file added later (a provider, an adapter, lib/index.ts) is picked up without touching this file.
 */
export function entryPoints(): Record<string, string> {
  const fixed: Record<string, string> = {
    index: "lib/index.ts",
    core: "lib/core/index.ts",
    web: "lib/web/index.ts",
    jwt: "lib/jwt/index.ts",
    errors: "lib/errors/index.ts",
    catalog: "lib/catalog.ts",
    resource: "lib/resource/index.ts",
  }
  const entries: Record<string, string> = {}
  for (const [name, file] of Object.entries(fixed)) if (existsSync(file)) entries[name] = file
  return { ...entries, ...filesIn("providers"), ...storageEntries(), ...filesIn("client") }
}

/**
 * Appended to every CommonJS provider, adapter and store entry: `require("gatehouse-auth/providers/github")` returns the
 * factory itself, as `import GitHub from` does in ESM, with the named exports and `.default` kept on it (so
 * `require(...).default`, `const { GitHub } = require(...)` and TypeScript's CommonJS interop all still work).
 */
export const cjsFactoryFooter = `
;(function (m) {
  var f = m.exports && m.exports.default
  if (typeof f !== "function") return
  for (var k of Object.keys(m.exports)) if (!Object.prototype.hasOwnProperty.call(f, k)) f[k] = m.exports[k]
  Object.defineProperty(f, "__esModule", { value: true })
  m.exports = f
})(module);
`

/** Makes each CommonJS provider, adapter and store entry export its factory (see {@link cjsFactoryFooter}). */
function exportFactoriesFromCjsEntries(): void {
  for (const name of Object.keys(entryPoints())) {
    if (!/^(providers|adapters|store)\//.test(name)) continue
    const file = join("dist", `${name}.js`)
    if (existsSync(file)) appendFileSync(file, cjsFactoryFooter)
  }
}

const common: Options = {
  entry: entryPoints(),
  outDir: "dist",
  platform: "node",
  target: "node20",
  // One copy of every module per format: code shared by several entries (lib/errors/ above all) goes into a chunk that
  // each entry loads, so `err instanceof AuthError` holds whichever entry threw it and whichever entry it came from.
  splitting: true,
  sourcemap: false,
  treeshake: false,
  removeNodeProtocol: false,
  // tsup's own `clean` runs in each config concurrently and would delete the other format's files; dist/ is
  // emptied once below instead.
  clean: false,
  external: alwaysExternal,
  // ES module output gets `__filename` from `import.meta.url` where a module uses it: the SQLite driver loader
  // requires its driver synchronously through `createRequire(__filename)` in both formats.
  shims: true,
}

export default defineConfig((options) => {
  if (!options.watch) rmSync("dist", { recursive: true, force: true })
  return [
    // ESM: dist/*.mjs and dist/*.d.mts; every dependency stays an import.
    { ...common, format: ["esm"], dts: true },
    // CommonJS: dist/*.js and dist/*.d.ts; the ESM-only dependencies are bundled in (see esmOnlyDependencies).
    {
      ...common,
      // The `gatehouse-auth` command (package.json `bin`) exists in CommonJS only: it is run, never imported.
      entry: { ...entryPoints(), cli: "lib/cli.ts" },
      format: ["cjs"],
      dts: true,
      external: alwaysExternal.filter((name) => !esmOnlyDependencies.includes(name)),
      noExternal: esmOnlyDependencies,
      // tsup's default ESM-to-CommonJS pass for split chunks (sucrase) miscompiles jose's classes; with `treeshake`
      // each chunk goes through rollup instead, which converts it correctly.
      treeshake: true,
      onSuccess: async () => exportFactoriesFromCjsEntries(),
    },
  ]
})
