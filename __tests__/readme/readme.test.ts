/**
 * Every ```ts block of the README, docs/migrating-from-authjs.md and the provider guides compiles against the library (`gatehouse-auth`
 * mapped to lib/). The packaging test checks them again against the packed tarball in a `tsc --init` project.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"

const root = path.resolve(__dirname, "../..")
const dir = path.join(root, "__tests__/readme/.blocks")

function blocks(): string[] {
  const providerGuides = ["index", "social", "regional", "enterprise", "high-security"].map(
    (page) => `docs/guide/providers/${page}.md`,
  )
  return ["README.md", "docs/migrating-from-authjs.md", ...providerGuides].flatMap((doc) => {
    const text = readFileSync(path.join(root, doc), "utf8")
    return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
  })
}

describe("README code blocks", () => {
  it("there are several TypeScript blocks", () => {
    expect(blocks().length).toBeGreaterThanOrEqual(5)
  })

  it("every block type-checks", () => {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    blocks().forEach((code, i) => writeFileSync(path.join(dir, `block-${i}.ts`), `${code}\nexport {}\n`))
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../../../tsconfig.json",
        compilerOptions: {
          noEmit: true,
          noUnusedLocals: false,
          baseUrl: ".",
          paths: { "gatehouse-auth": ["../../../lib/index.ts"], "gatehouse-auth/*": ["../../../lib/*"] },
          types: ["node"],
        },
        include: ["./*.ts", "../../../lib/express/augment.ts"],
        exclude: [],
      }),
    )
    let output = ""
    try {
      execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", path.join(dir, "tsconfig.json")], {
        encoding: "utf8",
      })
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error)
    }
    expect(output).toBe("")
    rmSync(dir, { recursive: true, force: true })
  }, 120_000)
})
