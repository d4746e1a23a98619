/**
 * The kept answers of cookie-less session reads (`GET <base>/session` without a query or any `Cookie` header, issue
 * 16): the answer the pipeline gave the first such request of an origin, and where its CSRF cookie goes, so later ones
 * are answered with a newly minted token without running the pipeline. One store per config runtime.
 */
import type { OutgoingCookie } from "../kernel/cookies/jar"
import type { SerializedResult } from "../kernel/response"

/** The cookie-less session answer of one origin, and the CSRF cookie minted anew for each request. */
export interface CookielessAnswer {
  answer: SerializedResult
  /** Where in `answer.headers` the CSRF cookie is, and its name and options; none when CSRF checks are skipped. */
  csrf?: { at: number; name: string; options: OutgoingCookie["options"] }
}

/** The kept answers of one runtime, by base path and origin. */
export interface CookielessAnswers {
  get(basePath: string, origin: string): CookielessAnswer | undefined
  set(basePath: string, origin: string, answer: CookielessAnswer): void
}

/** Origins come from the `Host` header, which is the client's: a runtime keeps at most this many answers. */
export const MAX_KEPT_ANSWERS = 64

/**
 * Creates an empty store; when it is full, it is emptied before the next answer is kept.
 *
 * @example
 * ```ts
 * const answers = createCookielessAnswers()
 * answers.get("/auth", "https://app.example") // undefined until one is kept
 * ```
 */
export function createCookielessAnswers(max = MAX_KEPT_ANSWERS): CookielessAnswers {
  const kept = new Map<string, CookielessAnswer>()
  // An origin holds no space and comes last, so the key is unambiguous.
  const key = (basePath: string, origin: string) => `${basePath} ${origin}`
  return {
    get: (basePath, origin) => kept.get(key(basePath, origin)),
    set(basePath, origin, answer) {
      if (kept.size >= max) kept.clear()
      kept.set(key(basePath, origin), answer)
    },
  }
}
