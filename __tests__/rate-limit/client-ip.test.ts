// next-wave E2 and E3: which client a request counts for. The IP is Express's `req.ip` (so `trust proxy` decides),
// IPv6 is grouped by /64 and IPv4-mapped addresses are unwrapped.
import { clientIpSubject } from "../../lib/core/kernel/rate-limit/ip"
import { versions } from "../express/apps"
import { csrfOf, limitedApp, postSignIn } from "./harness"

const wrong = (i: number) => ({ email: `user${i}@example.com`, password: "wrong" })

describe.each(versions)("E3 on %s: trust proxy decides whether X-Forwarded-For counts", (_name, express) => {
  it("trust proxy off: 20 different X-Forwarded-For values are one bucket, limited at the 11th", async () => {
    const { app, authorized } = limitedApp({ express })
    const csrf = await csrfOf(app)
    const locations: string[] = []
    for (let i = 1; i <= 20; i += 1) {
      const response = await postSignIn(app, csrf, wrong(i), { headers: { "X-Forwarded-For": `198.51.100.${i}` } })
      locations.push(String(response.headers.location))
    }
    expect(authorized).toHaveLength(10)
    expect(locations.findIndex((l) => /error=RateLimited/.test(l))).toBe(10)
    expect(locations.slice(10).every((l) => /error=RateLimited/.test(l))).toBe(true)
  })

  it("trust proxy = 1: 20 different X-Forwarded-For values are 20 buckets", async () => {
    const { app, authorized, limited } = limitedApp({ trustProxy: 1, express })
    const csrf = await csrfOf(app)
    for (let i = 1; i <= 20; i += 1) {
      const response = await postSignIn(app, csrf, wrong(i), { headers: { "X-Forwarded-For": `198.51.100.${i}` } })
      expect(response.headers.location).toMatch(/error=CredentialsSignin/)
    }
    expect(authorized).toHaveLength(20)
    expect(limited).toHaveLength(0)
  })

  it("trust proxy = 1 trusts only the last hop: a client-prepended value does not change the bucket", async () => {
    const { app, authorized } = limitedApp({ trustProxy: 1, express })
    const csrf = await csrfOf(app)
    for (let i = 1; i <= 11; i += 1) {
      // The client forges the first entry; the one proxy appends the real address.
      await postSignIn(app, csrf, wrong(i), { headers: { "X-Forwarded-For": `10.0.0.${i}, 203.0.113.7` } })
    }
    expect(authorized).toHaveLength(10)
  })
})

describe("E2: IPv6 grouped by /64", () => {
  it("2001:db8:1:2::1 and 2001:db8:1:2::ffff share a bucket; 2001:db8:1:3::1 does not", async () => {
    const { app, authorized } = limitedApp({ trustProxy: true })
    const csrf = await csrfOf(app)
    for (let i = 0; i < 11; i += 1) {
      const ip = i % 2 === 0 ? "2001:db8:1:2::1" : "2001:db8:1:2::ffff"
      await postSignIn(app, csrf, wrong(i), { headers: { "X-Forwarded-For": ip } })
    }
    expect(authorized).toHaveLength(10)
    const other = await postSignIn(app, csrf, wrong(99), { headers: { "X-Forwarded-For": "2001:db8:1:3::1" } })
    expect(other.headers.location).toMatch(/error=CredentialsSignin/)
    expect(authorized).toHaveLength(11)
  })

  it("an IPv4-mapped address counts as its IPv4 address", async () => {
    const { app, authorized } = limitedApp({ trustProxy: true })
    const csrf = await csrfOf(app)
    for (let i = 0; i < 11; i += 1) {
      const ip = i % 2 === 0 ? "192.0.2.44" : "::ffff:192.0.2.44"
      await postSignIn(app, csrf, wrong(i), { headers: { "X-Forwarded-For": ip } })
    }
    expect(authorized).toHaveLength(10)
  })

  it.each([
    ["2001:db8:1:2::1", 64, "2001:db8:1:2:0:0:0:0/64"],
    ["2001:DB8:1:2:aaaa:bbbb:cccc:dddd", 64, "2001:db8:1:2:0:0:0:0/64"],
    ["2001:db8:1:2::ffff", 48, "2001:db8:1:0:0:0:0:0/48"],
    ["2001:db8:1:2::ffff", 56, "2001:db8:1:0:0:0:0:0/56"],
    ["2001:db8:1:2ff::1", 56, "2001:db8:1:200:0:0:0:0/56"],
    ["::1", 128, "0:0:0:0:0:0:0:1/128"],
    ["fe80::1%eth0", 64, "fe80:0:0:0:0:0:0:0/64"],
    ["::ffff:192.0.2.1", 64, "192.0.2.1"],
    ["::ffff:c000:0201", 64, "192.0.2.1"],
    ["192.0.2.1", 64, "192.0.2.1"],
    [" 192.0.2.1 ", 64, "192.0.2.1"],
  ])("clientIpSubject(%j, %i) = %j", (ip, subnet, expected) => {
    expect(clientIpSubject(ip, subnet)).toBe(expected)
  })

  it.each([[undefined], [null], [""], ["   "]])("no address (%j) is no subject", (ip) => {
    expect(clientIpSubject(ip, 64)).toBeNull()
  })

  it("a value that is not an address is used as an opaque, lowercased subject", () => {
    expect(clientIpSubject("Client-42", 64)).toBe("client-42")
  })
})
