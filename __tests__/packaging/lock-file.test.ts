/**
 * package-lock.json lists the optional dependencies of every locked package, for every platform (npm installs only
 * this machine's). A lock regenerated while node_modules exists loses the other platforms' entries (npm/cli#4828), and
 * the next `npm install` in a clean clone writes them back, leaving the clone dirty. This test catches such a lock.
 */
import { readFileSync } from "node:fs"
import path from "node:path"

interface LockEntry {
  version?: string
  optionalDependencies?: Record<string, string>
}

const root = path.resolve(__dirname, "../..")

/** Where Node would find `name` from the package at `location` (`node_modules/a/node_modules/b`), or undefined. */
export function resolveInLock(packages: Record<string, LockEntry>, location: string, name: string): string | undefined {
  let dir = location
  for (;;) {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`
    if (packages[candidate]) return candidate
    if (dir === "") return undefined
    const up = dir.lastIndexOf("/node_modules/")
    dir = up === -1 ? "" : dir.slice(0, up)
  }
}

/** The optional dependencies the lock names but does not list, as `location -> name@range`. */
export function missingOptionals(packages: Record<string, LockEntry>): string[] {
  const missing: string[] = []
  for (const [location, entry] of Object.entries(packages)) {
    for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
      const found = resolveInLock(packages, location, name)
      // An exact version (as rollup and esbuild pin their binaries) must be the locked one.
      const exact = /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range)
      if (!found || (exact && packages[found]!.version !== range))
        missing.push(`${location || "."} -> ${name}@${range}`)
    }
  }
  return missing
}

describe("package-lock.json", () => {
  const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
    lockfileVersion: number
    packages: Record<string, LockEntry>
  }

  it("lists every platform's optional binaries of each locked package", () => {
    expect(lock.lockfileVersion).toBe(3)
    expect(missingOptionals(lock.packages)).toEqual([])
    // The packages whose binaries went missing before: a binary of another platform is there.
    expect(lock.packages["node_modules/@rollup/rollup-win32-x64-msvc"]).toBeDefined()
  })

  it("its root entry declares exactly package.json's dependencies, so `npm install` leaves the lock as it is", () => {
    const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as Record<string, unknown>
    const rootEntry = lock.packages[""] as unknown as Record<string, unknown>
    for (const field of ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"]) {
      expect([field, rootEntry[field] ?? {}]).toEqual([field, manifest[field] ?? {}])
    }
  })

  it("names the entry a lock regenerated on one platform lacks", () => {
    const trimmed = Object.fromEntries(
      Object.entries(lock.packages).filter(([location]) => !location.endsWith("/rollup-darwin-arm64")),
    )
    expect(missingOptionals(trimmed)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^node_modules\/rollup -> @rollup\/rollup-darwin-arm64@/)]),
    )
  })
})
