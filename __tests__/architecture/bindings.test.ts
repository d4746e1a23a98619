// The binding follower the seam tests rely on: every way of reaching a function under another name is found, and a
// function that only shares the name is not.
import { join, resolve } from "node:path"
import { filesUsing, programOf } from "./bindings"
import { sourceFiles } from "./graph"

const FIXTURES = resolve(__dirname, "fixtures/bindings")

describe("filesUsing follows the binding, not the name", () => {
  it("finds renamed, namespace, aliased, destructured and re-exported uses, and nothing that only shares the name", () => {
    const program = programOf(sourceFiles(FIXTURES))
    expect(filesUsing(program, FIXTURES, join(FIXTURES, "secret.ts"), "keyedHash")).toEqual([
      "alias-user.ts",
      "namespace-import.ts",
      "re-export-user.ts",
      "re-export.ts",
      "renamed-import.ts",
      "shorthand-user.ts",
      "shorthand.ts",
      "value-alias.ts",
    ])
  })

  it("follows a package's function from the file that imports it", () => {
    const program = programOf(sourceFiles(FIXTURES))
    expect(filesUsing(program, FIXTURES, join(FIXTURES, "compare.ts"), "timingSafeEqual")).toEqual([
      "compare-aliased.ts",
      "compare.ts",
    ])
  })

  it("refuses a name the file does not bind", () => {
    const program = programOf(sourceFiles(FIXTURES))
    expect(() => filesUsing(program, FIXTURES, join(FIXTURES, "secret.ts"), "nothing")).toThrow(
      "secret.ts binds no nothing",
    )
  })
})
