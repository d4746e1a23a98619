/**
 * Whether a credentials provider's `authorize(credentials, request)` can receive its second argument: building that
 * `Request` (with the parsed fields as a JSON body) costs more than the rest of a sign-in's own work, and most
 * `authorize` functions take the credentials alone.
 */

/** Answers per function: a provider's `authorize` is the same object for the life of its config. */
const known = new WeakMap<object, boolean>()

/**
 * Whether `fn` may read a second argument. `false` only when its source shows at most one parameter (a name or a
 * destructuring pattern, with no default value and no rest element) and never mentions `arguments` or `eval`; `true`
 * for anything else, including a bound, native or proxied function (its source is not shown) and any source this
 * reading does not follow. So a wrong answer can only ever be `true`, which builds a request that goes unread.
 *
 * @example
 * ```ts
 * mayReadSecondArgument(({ username }) => check(username)) // false
 * mayReadSecondArgument((credentials, request) => check(credentials, request)) // true
 * ```
 */
export function mayReadSecondArgument(fn: (...args: never[]) => unknown): boolean {
  let answer = known.get(fn)
  if (answer === undefined) {
    answer = readsSecond(fn)
    known.set(fn, answer)
  }
  return answer
}

function readsSecond(fn: (...args: never[]) => unknown): boolean {
  if (fn.length > 1) return true
  let source: string
  try {
    source = Function.prototype.toString.call(fn)
  } catch {
    return true
  }
  // `[native code]`: a bound, built-in or proxied function, whose parameters cannot be read here.
  if (/\barguments\b|\beval\b|\[native code\]/.test(source)) return true
  const params = parameterList(source)
  return params === undefined || !isAtMostOneParameter(params)
}

const IDENTIFIER = "[A-Za-z_$][\\w$]*"
/** `x => …` and `async x => …`: one parameter without parentheses. */
const BARE_ARROW = new RegExp(`^(?:async\\s+)?${IDENTIFIER}\\s*=>`)
/** Where a parenthesised parameter list starts: a function expression or declaration, an arrow, a method. */
const LIST_START = new RegExp(
  `^(?:async\\s*)?(?:function\\s*\\*?\\s*(?:${IDENTIFIER}\\s*)?|\\*?\\s*${IDENTIFIER}\\s*)?\\(`,
)

/** The text between a function's parameter parentheses (`""` for a bare arrow's), or `undefined` when not followed. */
function parameterList(source: string): string | undefined {
  if (BARE_ARROW.test(source)) return ""
  const start = LIST_START.exec(source)
  if (!start) return undefined
  let depth = 0
  for (let i = start[0].length - 1; i < source.length; i++) {
    const c = source[i]!
    // A string, template, regular expression or comment could hold a bracket: such a list is not followed.
    if (c === '"' || c === "'" || c === "`" || c === "/") return undefined
    if (c === "(" || c === "[" || c === "{") depth++
    else if (c === ")" || c === "]" || c === "}") {
      depth--
      if (depth === 0) return c === ")" ? source.slice(start[0].length, i) : undefined
    }
  }
  return undefined
}

/** No default (`=`), no rest (`...`), and no comma outside a destructuring pattern. */
function isAtMostOneParameter(params: string): boolean {
  if (params.includes("=") || params.includes("...")) return false
  let depth = 0
  for (const c of params) {
    if (c === "(" || c === "[" || c === "{") depth++
    else if (c === ")" || c === "]" || c === "}") depth--
    else if (c === "," && depth === 0) return false
  }
  return true
}
