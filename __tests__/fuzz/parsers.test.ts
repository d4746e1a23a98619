// Parser-level fuzzing (fixed seed): each parser the core trusts with request bytes keeps its own invariants.
import fc from "fast-check"
import { parserProperties } from "./parsers"
import { FUZZ_SEED, sliceRuns } from "./settings"

jest.setTimeout(180_000)

describe("parser fuzzing (fixed seed)", () => {
  it.each(parserProperties().map((p) => [p.name, p] as const))("%s", async (_name, { property, weight }) => {
    await fc.assert(property(), { seed: FUZZ_SEED, numRuns: Math.round(weight * sliceRuns.parser) })
  })
})
