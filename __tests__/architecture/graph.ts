// The import graph of lib/ as the architecture tests read it: every `import`/`export … from` (type-only included) and
// every dynamic `import("…")` between files of lib/.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

export const LIB = resolve(__dirname, "../../lib")

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
  throw new Error(`unresolved import "${specifier}" in ${relative(LIB, from)}`)
}

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

/** Strongly connected components of more than one room (Tarjan). */
export function roomCircles(edges: [string, string][]): string[][] {
  const next = new Map<string, Set<string>>()
  for (const [a, b] of edges) if (a !== b) next.set(a, (next.get(a) ?? new Set()).add(b))
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const circles: string[][] = []
  let counter = 0
  const visit = (v: string) => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const circle: string[] = []
      let w: string
      do {
        w = stack.pop()!
        circle.push(w)
      } while (w !== v)
      if (circle.length > 1) circles.push(circle.sort())
    }
  }
  for (const v of new Set(edges.flat())) if (!index.has(v)) visit(v)
  return circles
}
