// The core has floors: pipeline -> methods -> session -> kernel, imports pointing down only, each sign-in method a
// room of its own, no circle between rooms; the edges reach the core through its public entry and the Gatehouse
// object alone; the engines and storage never import the core.
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { importGraph, LIB, roomCircles } from "./graph"

const graph = importGraph()
const rel = (file: string) => relative(LIB, file).split("\\").join("/")

/** Every import as `[from, to]`, paths relative to lib/. */
const imports: [string, string][] = [...graph].flatMap(([from, targets]) =>
  targets.map((to): [string, string] => [rel(from), rel(to)]),
)

const FLOORS = ["kernel", "session", "methods", "pipeline"] as const

/** The floor of a file under lib/core/ (index.ts, the public entry, stands above every floor). */
function floorOf(file: string): number | undefined {
  if (!file.startsWith("core/")) return undefined
  if (file === "core/index.ts") return FLOORS.length
  const floor = FLOORS.indexOf(file.split("/")[1] as (typeof FLOORS)[number])
  if (floor === -1) throw new Error(`${file} stands on no floor of lib/core/`)
  return floor
}

/** The room of a file under lib/core/: its floor, or `methods/<method>` for a sign-in method. */
function roomOf(file: string): string | undefined {
  if (!file.startsWith("core/")) return undefined
  const [, floor, method] = file.split("/")
  if (floor === "methods") return `methods/${method}`
  return file === "core/index.ts" ? "index" : floor
}

describe("the floors of lib/core/", () => {
  const coreImports = imports.filter(([from, to]) => from.startsWith("core/") && to.startsWith("core/"))

  it("reads the core (control: the pipeline imports the router, the kernel nothing above it)", () => {
    expect(coreImports).toContainEqual(["core/pipeline/auth.ts", "core/pipeline/router.ts"])
    expect(coreImports.length).toBeGreaterThan(100)
  })

  it("imports point down: pipeline -> methods -> session -> kernel, never back", () => {
    const up = coreImports.filter(([from, to]) => floorOf(to)! > floorOf(from)!)
    expect(up).toEqual([])
  })

  it("a sign-in method never imports another method's room", () => {
    const across = coreImports.filter(([from, to]) => {
      const a = roomOf(from)!
      const b = roomOf(to)!
      return a.startsWith("methods/") && b.startsWith("methods/") && a !== b
    })
    expect(across).toEqual([])
  })

  it("has no circle between rooms (the floors and the method rooms)", () => {
    const rooms = coreImports.map(([from, to]): [string, string] => [roomOf(from)!, roomOf(to)!])
    expect(roomCircles(rooms)).toEqual([])
    // The check can fail: a planted edge back up makes a circle.
    expect(roomCircles([...rooms, ["kernel", "pipeline"]])).not.toEqual([])
  })
})

describe("the edges and the engines", () => {
  it("lib/express/ and lib/web/ reach the core only through core/index.ts and core/pipeline/gatehouse.ts", () => {
    const edges = imports.filter(([from]) => from.startsWith("express/") || from.startsWith("web/"))
    expect(edges.length).toBeGreaterThan(10)
    const inner = edges.filter(
      ([, to]) => to.startsWith("core/") && to !== "core/index.ts" && to !== "core/pipeline/gatehouse.ts",
    )
    expect(inner).toEqual([])
  })

  it("the engines, the storage and the providers never import the core or an edge", () => {
    const below = ["jwt/", "oauth/", "webauthn/", "storage/", "providers/"]
    const upward = imports.filter(
      ([from, to]) =>
        below.some((room) => from.startsWith(room)) &&
        (to.startsWith("core/") || to.startsWith("express/") || to.startsWith("web/")),
    )
    expect(upward).toEqual([])
  })

  it("the Express edge is a thin adapter: gatehouse.ts under 150 lines, the Fetch one under 100", () => {
    const lines = (file: string) => readFileSync(`${LIB}/${file}`, "utf8").split("\n").length
    expect(lines("express/gatehouse.ts")).toBeLessThan(150)
    expect(lines("web/gatehouse.ts")).toBeLessThan(100)
  })
})
