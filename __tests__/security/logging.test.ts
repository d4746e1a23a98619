// LG-04 (issue 11): CR/LF (and any control character) in a callbackUrl or a provider id cannot forge log lines
// through the default logger.
import { Auth } from "../../lib/core"
import { createLogger, escapeControl } from "../../lib/logger"
import { credentialsConfig, csrf, makeRequest } from "../core/helpers"

const FORGED = "[gatehouse][error] Forged: admin signed in"

function captureStderr(): { lines: () => string[]; restore: () => void } {
  const chunks: string[] = []
  const spy = jest.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk))
    return true
  })
  return { lines: () => chunks.join("").split("\n").filter(Boolean), restore: () => spy.mockRestore() }
}

describe("LG-04", () => {
  it("a CR/LF in callbackUrl or in a provider id stays inside one line of the default logger", async () => {
    const config = credentialsConfig({ logger: undefined })
    const pair = await csrf(config)
    const stderr = captureStderr()
    try {
      await Auth(makeRequest(`/auth/signin?callbackUrl=${encodeURIComponent(`javascript:x\r\n${FORGED}`)}`), config)
      await Auth(
        makeRequest(`/auth/signin/${encodeURIComponent(`nope\r\n${FORGED}`)}`, {
          cookies: pair.cookies,
          body: { csrfToken: pair.token },
        }),
        config,
      )
    } finally {
      stderr.restore()
    }
    const lines = stderr.lines()
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) expect(line.startsWith("[gatehouse][")).toBe(true)
    expect(lines.some((line) => line.startsWith(FORGED))).toBe(false)
    expect(lines.join("\n")).toContain("\\r\\n[gatehouse][error] Forged")
  })

  it("every level escapes control characters, U+2028 included", () => {
    const stderr = captureStderr()
    try {
      const logger = createLogger({ debug: true })
      logger.error(new Error(`boom\n${FORGED}`, { cause: { err: new Error(`inner\u2028${FORGED}`), id: "a\rb" } }))
      logger.debug(`step\n${FORGED}`, { provider: `p\u0085q` })
    } finally {
      stderr.restore()
    }
    const lines = stderr.lines()
    expect(lines.some((line) => line.startsWith(FORGED) || line.includes("\u2028") || line.includes("\u0085"))).toBe(
      false,
    )
    for (const line of lines) expect(line.startsWith("[gatehouse][")).toBe(true)
    expect(escapeControl("a\u0000b\u2029c")).toBe("a\\u0000b\\u2029c")
  })
})
