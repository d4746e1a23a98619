// A small jest-compatible runner for suites that run outside jest, on Bun and Deno: describe/it and their hooks,
// jest's own `expect`, and a fake `Date.now` for `jest.useFakeTimers`/`setSystemTime`. One TAP line per test.
import { expect } from "expect"

type Hook = () => unknown
interface Test {
  title: string
  fn: Hook
}
interface Suite {
  title: string
  children: Array<Test | Suite>
  beforeAll: Hook[]
  afterAll: Hook[]
  beforeEach: Hook[]
  afterEach: Hook[]
}

const suite = (title: string): Suite => ({
  title,
  children: [],
  beforeAll: [],
  afterAll: [],
  beforeEach: [],
  afterEach: [],
})
const root = suite("")
let current = root

const realNow = Date.now
let fakeNow: number | undefined

/** The subset of jest's `jest` object the contract suites use: only `Date.now` is faked. */
const jestShim = {
  useFakeTimers(options: { now?: number } = {}) {
    fakeNow = options.now ?? realNow()
    Date.now = () => fakeNow!
  },
  setSystemTime(now: number) {
    if (fakeNow === undefined) throw new Error("setSystemTime without useFakeTimers")
    fakeNow = now
  },
  useRealTimers() {
    fakeNow = undefined
    Date.now = realNow
  },
}

/** Puts `describe`, `it`, `test`, the hooks, `expect` and `jest` on the global object, as jest does. */
export function installGlobals(): void {
  const globals: Record<string, unknown> = {
    describe(title: string, body: () => void) {
      const parent = current
      const child = suite(title)
      parent.children.push(child)
      current = child
      try {
        body()
      } finally {
        current = parent
      }
    },
    it: (title: string, fn: Hook) => current.children.push({ title, fn }),
    test: (title: string, fn: Hook) => current.children.push({ title, fn }),
    beforeAll: (fn: Hook) => current.beforeAll.push(fn),
    afterAll: (fn: Hook) => current.afterAll.push(fn),
    beforeEach: (fn: Hook) => current.beforeEach.push(fn),
    afterEach: (fn: Hook) => current.afterEach.push(fn),
    expect,
    jest: jestShim,
  }
  Object.assign(globalThis, globals)
}

/** Runs every registered test in order; prints `ok`/`not ok` lines and a closing count; resolves to the failures. */
export async function run(): Promise<number> {
  let passed = 0
  let failed = 0
  const walk = async (s: Suite, path: string[], each: Suite[]): Promise<void> => {
    const chain = [...each, s]
    for (const hook of s.beforeAll) await hook()
    for (const child of s.children) {
      if ("children" in child) {
        await walk(child, [...path, child.title], chain)
        continue
      }
      const name = [...path, child.title].filter(Boolean).join(" > ")
      try {
        for (const parent of chain) for (const hook of parent.beforeEach) await hook()
        await child.fn()
        for (const parent of [...chain].reverse()) for (const hook of parent.afterEach) await hook()
        passed++
        console.log(`ok ${passed + failed} - ${name}`)
      } catch (error) {
        failed++
        console.log(`not ok ${passed + failed} - ${name}`)
        console.log(`  ${String((error as Error)?.stack ?? error).replace(/\n/g, "\n  ")}`)
        jestShim.useRealTimers()
      }
    }
    for (const hook of s.afterAll) await hook()
  }
  await walk(root, [], [])
  console.log(`${passed} passed, ${failed} failed`)
  return failed
}
