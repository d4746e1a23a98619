// The path property of the deny rule (fixed seed): for random targets with dot segments, encodings and case changes,
// `authorized` is asked about exactly the path Express routes, on Express 4 and 5 under every routing setting.
import fc from "fast-check"
import { FUZZ_SEED, sliceRuns } from "./settings"
import { checkPathCase, startPathTargets, stopPathTargets, targetArb, type PathTarget } from "./paths"

jest.setTimeout(180_000)

describe("path fuzzing (fixed seed)", () => {
  let targets: PathTarget[]

  beforeAll(async () => {
    targets = await startPathTargets()
  })
  afterAll(async () => {
    await stopPathTargets(targets)
  })

  it("authorized decides on the path each app routes; a path a URL parser rewrites is refused", async () => {
    await fc.assert(
      fc.asyncProperty(targetArb, (target) => checkPathCase(targets, target)),
      { seed: FUZZ_SEED, numRuns: sliceRuns.paths },
    )
  })

  it("the examples of the attack review hold under the property", async () => {
    for (const target of [
      "/admin/panel/../../auth/signin",
      "/admin/panel/%2e%2e/%2e%2e/auth/signin",
      "/ADMIN",
      "/Admin/",
    ]) {
      await checkPathCase(targets, target)
    }
  })
})
