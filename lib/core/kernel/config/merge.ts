/** Deep merge of a provider's user options over its defaults. */

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

/**
 * Merges `source` over `target` without mutating either: plain objects merge recursively, arrays merge index-wise,
 * `undefined` in the source keeps the target's value, anything else (strings, functions, `null`, class instances)
 * replaces it. Symbol keys are carried over too.
 *
 * @example
 * ```ts
 * deepMerge({ authorization: { url: "a", params: { scope: "x" } } }, { authorization: { params: { prompt: "login" } } })
 * // { authorization: { url: "a", params: { scope: "x", prompt: "login" } } }
 * ```
 */
export function deepMerge<T>(target: T, source: unknown): T {
  if (source === undefined) return target
  if (Array.isArray(target) && Array.isArray(source)) {
    const out: unknown[] = [...target]
    source.forEach((value, i) => {
      out[i] = deepMerge(out[i], value)
    })
    return out as T
  }
  if (!isPlainObject(target) || !isPlainObject(source)) return source as T
  const out: Record<string | symbol, unknown> = { ...target }
  for (const key of Reflect.ownKeys(source)) {
    const value = (source as Record<string | symbol, unknown>)[key]
    if (value === undefined) continue
    out[key] = key in out ? deepMerge(out[key], value) : value
  }
  return out as T
}
