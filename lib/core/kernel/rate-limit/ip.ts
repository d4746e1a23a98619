/** The client IP as a rate-limit subject: IPv4-mapped IPv6 unwrapped, IPv6 grouped by its network prefix. */
import { isIPv4, isIPv6 } from "node:net"

/** Expands an IPv6 address (no zone) into its eight 16-bit groups, or `null` when it is not one. */
function ipv6Groups(address: string): number[] | null {
  // An embedded IPv4 suffix (`::ffff:192.0.2.1`) is written as its two groups first.
  const text = address.replace(/(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/, (_m, a, b, c, d) =>
    [((Number(a) << 8) | Number(b)).toString(16), ((Number(c) << 8) | Number(d)).toString(16)].join(":"),
  )
  const halves = text.split("::")
  if (halves.length > 2) return null
  const part = (s: string): number[] => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)))
  const head = part(halves[0]!)
  const rest = halves.length === 2 ? part(halves[1]!) : []
  const missing = 8 - head.length - rest.length
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null
  const groups = [...head, ...new Array<number>(missing).fill(0), ...rest]
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null
}

/**
 * The client IP as `session.storeIp` records it: `true` keeps the address (an IPv4-mapped IPv6 address as IPv4),
 * `"truncate"` only its network (IPv4 `a.b.c.0/24`, IPv6 its /64). Anything that is not an IP address: `null`.
 *
 * @example
 * ```ts
 * storedClientIp("192.0.2.77", "truncate") // "192.0.2.0/24"
 * storedClientIp("2001:db8:1:2::ffff", "truncate") // "2001:db8:1:2:0:0:0:0/64"
 * ```
 */
export function storedClientIp(ip: string | null | undefined, mode: true | "truncate"): string | null {
  if (typeof ip !== "string") return null
  const address = ip
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "")
  if (!isIPv4(address) && !isIPv6(address)) return null
  const v4 = isIPv4(address) ? address : clientIpSubject(address, 128)
  if (v4 !== null && isIPv4(v4)) {
    return mode === "truncate" ? `${v4.split(".").slice(0, 3).join(".")}.0/24` : v4
  }
  return mode === "truncate" ? clientIpSubject(address, 64) : address
}

/**
 * The subject a client IP counts under: an IPv4 address as is; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as
 * its IPv4 address; any other IPv6 address as its first `ipv6Subnet` bits (`2001:db8:1:2::/64`), since one client
 * commonly holds a whole /64. Anything else (a custom `ip()` returning a non-address) is used trimmed and lowercased.
 * Empty or missing: `null`.
 *
 * @example
 * ```ts
 * clientIpSubject("2001:db8:1:2::ffff", 64) // "2001:db8:1:2:0:0:0:0/64"
 * clientIpSubject("::ffff:192.0.2.1", 64) // "192.0.2.1"
 * ```
 */
export function clientIpSubject(ip: string | null | undefined, ipv6Subnet: number): string | null {
  if (typeof ip !== "string") return null
  const trimmed = ip.trim().toLowerCase()
  if (trimmed === "") return null
  if (isIPv4(trimmed)) return trimmed
  const address = trimmed.replace(/^\[|\]$/g, "").replace(/%.*$/, "")
  if (!isIPv6(address)) return trimmed
  const groups = ipv6Groups(address)
  if (!groups) return trimmed
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".")
  }
  let bits = ipv6Subnet
  const masked = groups.map((g) => {
    const keep = Math.max(0, Math.min(16, bits))
    bits -= 16
    return keep === 0 ? 0 : g & ((0xffff << (16 - keep)) & 0xffff)
  })
  return `${masked.map((g) => g.toString(16)).join(":")}/${ipv6Subnet}`
}
