/** Parses a Cookie request header strictly: names are taken as they are (never trimmed beyond OWS), first one wins. */

/**
 * Parses a `Cookie` header into a record. Only ASCII space and tab around a pair are skipped (RFC 6265 OWS); names are
 * not normalised, so a Unicode-padded `__Host-` lookalike stays a different name. Of duplicate names the first wins.
 * Values are percent-decoded when they contain `%` (left raw if malformed).
 *
 * @example
 * ```ts
 * parseCookieHeader("a=1; b=%7C") // { a: "1", b: "|" }
 * ```
 */
export function parseCookieHeader(header: string | null | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>
  if (!header) return out
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=")
    if (eq === -1) continue
    const name = trimOWS(pair.slice(0, eq))
    if (!name || name in out) continue
    let value = trimOWS(pair.slice(eq + 1))
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
    out[name] = value.includes("%") ? safeDecode(value) : value
  }
  return out
}

function trimOWS(s: string): string {
  let start = 0
  let end = s.length
  while (start < end && (s[start] === " " || s[start] === "\t")) start++
  while (end > start && (s[end - 1] === " " || s[end - 1] === "\t")) end--
  return s.slice(start, end)
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}
