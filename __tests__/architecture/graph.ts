// The module graph of lib/, read from the sources: what the architecture tests walk.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"

export const LIB = resolve(__dirname, "../../lib")

/** Every `.ts` file under `dir`, recursively. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.ts$/.test(name) ? [path] : []
  })
}

// Static imports and re-exports (`import type` and `export type` included) and dynamic `import("...")`.
const specifiers = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined
  const base = resolve(dirname(from), specifier)
  for (const candidate of [`${base}.ts`, `${base}.d.ts`, join(base, "index.ts")]) {
    if (existsSync(candidate)) return candidate
  }
  throw new Error(`unresolved import "${specifier}" in ${from.slice(LIB.length + 1)}`)
}

/** Each file of lib/ (absolute path) with the files of lib/ it imports. Package imports are left out. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of sourceFiles(LIB)) {
    const text = readFileSync(file, "utf8")
    const targets = new Set<string>()
    for (const match of text.matchAll(specifiers)) {
      const target = resolveImport(file, match[1] ?? match[2]!)
      if (target) targets.add(target)
    }
    graph.set(file, [...targets])
  }
  return graph
}
