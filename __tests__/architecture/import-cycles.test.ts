// The module graph of lib/ has no cycles, type-only imports included: rooms import downwards, never each other.
import { join, relative } from "node:path"
import { LIB, importGraph } from "./graph"

/** Every cycle found by a depth-first walk, each as the list of files (relative to lib/) that form it. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = []
  const state = new Map<string, "open" | "done">()
  const stack: string[] = []
  const visit = (file: string) => {
    state.set(file, "open")
    stack.push(file)
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") cycles.push(stack.slice(stack.indexOf(next)).map((f) => relative(LIB, f)))
      else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(file, "done")
  }
  for (const file of graph.keys()) if (!state.has(file)) visit(file)
  return cycles
}

describe("the import graph of lib/", () => {
  const graph = importGraph()

  it("is read from every module (the walker sees type-only imports too)", () => {
    expect(graph.size).toBeGreaterThan(100)
    const core = graph.get(join(LIB, "core/index.ts"))!.map((f) => relative(LIB, f))
    expect(core).toContain("core/auth.ts")
    // `export type * from` is an edge like any other.
    expect(core).toContain("storage/adapter.ts")
  })

  it("finds a planted cycle (the check can fail)", () => {
    const planted = new Map([
      [join(LIB, "a.ts"), [join(LIB, "b.ts")]],
      [join(LIB, "b.ts"), [join(LIB, "a.ts")]],
    ])
    expect(findCycles(planted)).toEqual([["a.ts", "b.ts"]])
  })

  it("has no cycle", () => {
    expect(findCycles(graph)).toEqual([])
  })

  it("lib/models.ts and lib/symbols.ts are leaves: they import nothing", () => {
    expect(graph.get(join(LIB, "models.ts"))).toEqual([])
    expect(graph.get(join(LIB, "symbols.ts"))).toEqual([])
  })
})
