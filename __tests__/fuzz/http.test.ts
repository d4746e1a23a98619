// Fuzzing the whole HTTP surface, in-process through Auth() and over loopback through Express: never a 5xx, never an
// unhandled rejection, well-formed answers, no leaked secret, no session cookie without a sign-in. A fixed-seed slice;
// `npm run fuzz` runs the same properties at scale with a random seed.
import fc from "fast-check"
import { FUZZ_SEED, sliceRuns } from "./settings"
import { createFuzzApp, runCoreCase, runExpressCase, startExpressTarget, type HttpFuzzApp } from "./http-target"

// Thousands of requests per test: a busy machine can take longer than jest's default 30 s per test.
jest.setTimeout(180_000)

describe("HTTP fuzzing (fixed seed)", () => {
  let app: HttpFuzzApp
  const rejections: unknown[] = []
  const onRejection = (reason: unknown) => rejections.push(reason)

  beforeAll(async () => {
    app = await createFuzzApp()
    process.on("unhandledRejection", onRejection)
  })
  afterAll(() => {
    process.off("unhandledRejection", onRejection)
  })

  it("Auth(): every hostile request gets a well-formed, non-5xx answer and no unearned session", async () => {
    await fc.assert(
      fc.asyncProperty(app.arbitrary, (req) => runCoreCase(app, req)),
      { seed: FUZZ_SEED, numRuns: sliceRuns.core },
    )
    expect(rejections).toEqual([])
    // The slice went deep: past the CSRF check into successful sign-ins and email requests, and across the statuses.
    const { totals } = app.observed
    expect(totals.signIns).toBeGreaterThan(0)
    expect(totals.emails).toBeGreaterThan(0)
    expect(Object.keys(totals.byStatus).map(Number)).toEqual(expect.arrayContaining([200, 302, 400]))
  })

  it("Express: the same over real HTTP, and nothing escapes to Express's error handler", async () => {
    const target = await startExpressTarget(app)
    try {
      await fc.assert(
        fc.asyncProperty(app.arbitrary, (req) => runExpressCase(app, target, req)),
        { seed: FUZZ_SEED, numRuns: sliceRuns.express },
      )
    } finally {
      await target.close()
    }
    expect(rejections).toEqual([])
  })
})
