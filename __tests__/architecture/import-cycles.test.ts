// The module graph of lib/ has no cycles, type-only imports included: rooms import downwards, never each other. Nor
// do the sub-folders of the kernel floor, taken as rooms (the kernel's own files one more room beside them).
import { join, relative } from "node:path"
import { importGraph, LIB, roomCircles } from "./graph"

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
    expect(core).toContain("core/pipeline/auth.ts")
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

describe("the sub-folders of lib/core/kernel/", () => {
  const graph = importGraph()
  const rel = (file: string) => relative(LIB, file).split("\\").join("/")

  /** `kernel/<folder>` for a file in a sub-folder of the kernel, `kernel` for one directly in it. */
  const roomOf = (file: string): string | undefined => {
    const parts = file.split("/")
    if (parts[0] !== "core" || parts[1] !== "kernel") return undefined
    return parts.length > 3 ? `kernel/${parts[2]}` : "kernel"
  }

  /** Every import between two rooms of the kernel, as `[from, to]` rooms. */
  const edges: [string, string][] = [...graph].flatMap(([from, targets]) =>
    targets.flatMap((to): [string, string][] => {
      const a = roomOf(rel(from))
      const b = roomOf(rel(to))
      return a !== undefined && b !== undefined && a !== b ? [[a, b]] : []
    }),
  )

  it("reads the kernel (control: the context imports the config and the cookie jar, the config the kernel's types)", () => {
    expect(edges).toContainEqual(["kernel", "kernel/config"])
    expect(edges).toContainEqual(["kernel", "kernel/cookies"])
    expect(edges).toContainEqual(["kernel/config", "kernel/types"])
    expect(edges).toContainEqual(["kernel/config", "kernel/rate-limit"])
  })

  it("has no circle between them", () => {
    expect(roomCircles(edges)).toEqual([])
    // The check can fail: the loop this replaced (the config reading the kernel's own route table) is found.
    expect(roomCircles([...edges, ["kernel/config", "kernel"]])).toEqual([["kernel", "kernel/config"]])
  })
})
