/**
 * Every ```ts block of README.md and of the pages of docs/ compiles against the library (`gatehouse-auth` mapped to
 * lib/). The packaging test checks them again against the packed tarball in a `tsc --init` project. A block that is
 * deliberately partial is fenced ```ts no-check, with an HTML comment `<!-- no-check: why -->` just above it.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import { codeBlocks, documentationFiles, isCheckedTypeScript, root, typeScriptBlocks } from "../docs/markdown"

const dir = path.join(root, "__tests__/readme/.blocks")

describe("README and docs code blocks", () => {
  it("there are TypeScript blocks in the README and in the guides", () => {
    const blocks = typeScriptBlocks()
    expect(blocks.filter((b) => b.file === "README.md").length).toBeGreaterThanOrEqual(1)
    expect(blocks.filter((b) => b.file.startsWith("docs/guide/")).length).toBeGreaterThanOrEqual(20)
  })

  it("a block is left unchecked only when marked `ts no-check` with its reason just above", () => {
    const unexplained: string[] = []
    for (const file of documentationFiles()) {
      const text = readFileSync(path.join(root, file), "utf8")
      const lines = text.split("\n")
      for (const block of codeBlocks(file, text)) {
        const [lang, ...flags] = block.info.split(/\s+/)
        if (lang !== "ts" && lang !== "typescript") continue
        if (flags.some((flag) => flag !== "no-check"))
          unexplained.push(`${file}:${block.line} unknown flag in "${block.info}"`)
        if (isCheckedTypeScript(block)) continue
        const above = lines.slice(Math.max(0, block.line - 4), block.line - 1).join("\n")
        if (!/<!--\s*no-check:\s*\S[^]*?-->/.test(above))
          unexplained.push(`${file}:${block.line} no-check without a reason`)
      }
    }
    expect(unexplained).toEqual([])
  })

  it("every checked block type-checks", () => {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    const names: string[] = []
    typeScriptBlocks().forEach((block, i) => {
      const name = `${path.basename(block.file, ".md")}-${block.line}-${i}.ts`
      names.push(`${name} = ${block.file}:${block.line}`)
      writeFileSync(path.join(dir, name), `${block.code}\nexport {}\n`)
    })
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../../../tsconfig.json",
        compilerOptions: {
          noEmit: true,
          noUnusedLocals: false,
          baseUrl: ".",
          paths: {
            "gatehouse-auth": ["../../../lib/index.ts"],
            // The storage entries map to one folder per driver (tsup.config.ts does the same for the package).
            "gatehouse-auth/adapters/*": ["../../../lib/storage/*/adapter.ts"],
            "gatehouse-auth/store/*": ["../../../lib/storage/*/store.ts"],
            "gatehouse-auth/*": ["../../../lib/*"],
          },
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
      // Name each failing file's source (README.md or a docs page, and the line of its fence).
      output = `${String((error as { stdout?: string }).stdout ?? error)}\n${names.join("\n")}`
    }
    expect(output).toBe("")
    rmSync(dir, { recursive: true, force: true })
  }, 180_000)
})
