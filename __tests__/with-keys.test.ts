import { withKeys } from "../lib/with-keys"

describe("withKeys", () => {
  it("is { ...base, ...extra }: the same keys in the same order, extra's values winning", () => {
    const base = { b: 1, a: 2, 1: "one" }
    const extra = { a: 3, c: 4 }
    const made = withKeys(base, extra)
    expect(made).toEqual({ ...base, ...extra })
    expect(Object.keys(made)).toEqual(Object.keys({ ...base, ...extra }))
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype)
    expect(made).not.toBe(base)
  })

  it("copies an own `__proto__` key of parsed data as a key, as a spread does, never as the prototype", () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>
    const made = withKeys(parsed, { b: 2 })
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype)
    expect((made as { polluted?: boolean }).polluted).toBeUndefined()
    expect(JSON.stringify(made)).toBe(JSON.stringify({ ...parsed, b: 2 }))
  })
})
