// The demo's "Your sessions" page (issue 14): the signed-in user's sessions with device, sign-in method and last seen;
// "Sign out other devices" and per-session "Sign out", posted with the page's form token. Real SQLite (in memory).
import type { Express } from "express"
import request from "supertest"
import {
  authConfig,
  createApp,
  createDemoAdapter,
  demoLogin,
  describeUserAgent,
} from "../../examples/express-basic/app"
import { cookieHeader, cookieJar } from "../express/apps"

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"
const CHROME_WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36"
const HOSTILE_AGENT = '<script>alert("ua")</script>"><img src=x>'

let app: Express
beforeEach(() => {
  // A fresh database per test: every credentials sign-in is the same demo user.
  app = createApp({ ...authConfig, adapter: createDemoAdapter(":memory:") })
})

/** Signs the demo user in with this User-Agent; returns the cookie header of that "device". */
async function signInAs(userAgent: string): Promise<string> {
  const csrf = await request(app).get("/auth/csrf").set("User-Agent", userAgent)
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const ok = await request(app)
    .post("/auth/callback/credentials")
    .set("User-Agent", userAgent)
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, ...demoLogin })
  expect(ok.status).toBe(302)
  jar = cookieJar(jar, ok.headers["set-cookie"])
  expect(jar["authjs.session-token"]).toBeDefined()
  return cookieHeader(jar)
}

const sessionsPage = (cookie: string) => request(app).get("/account/sessions").set("Cookie", cookie)
const sessionCount = (html: string) => html.match(/<li class="session">/g)?.length ?? 0
const formToken = (html: string) => /name="csrfToken" value="([^"]+)"/.exec(html)?.[1]
const sessionIds = (html: string) => [...html.matchAll(/name="id" value="([^"]+)"/g)].map((m) => m[1]!)
const apiStatus = async (cookie: string) =>
  (await request(app).get("/api/me").set("Cookie", cookie).set("Accept", "application/json")).status

test("a visitor is sent to sign in; the page is not shown", async () => {
  const page = await request(app).get("/account/sessions").set("Accept", "text/html")
  expect(page.status).toBe(302)
  expect(page.headers.location).toMatch(/^\/auth\/signin\?callbackUrl=.*%2Faccount%2Fsessions$/)
  const post = await request(app)
    .post("/account/sessions/revoke-others")
    .set("Accept", "application/json")
    .type("form")
    .send({ csrfToken: "x" })
  expect(post.status).toBe(401)
})

test("lists every session of the user: this device marked, device, method, last seen; the user agent escaped", async () => {
  const firefox = await signInAs(FIREFOX)
  await signInAs(CHROME_WINDOWS)
  await signInAs(HOSTILE_AGENT)

  const page = await sessionsPage(firefox)
  expect(page.status).toBe(200)
  expect(page.headers["content-security-policy"]).toContain("default-src 'none'")
  expect(page.headers["cache-control"]).toBe("no-store")
  expect(sessionCount(page.text)).toBe(3)
  expect(page.text).toContain("You have 3 active sessions.")
  expect(page.text.match(/This device/g)).toHaveLength(1)
  // The current session is listed with its device, and has no revoke-by-id form (it signs out through /logout).
  const current = /<li class="session">((?:(?!<\/li>).)*This device(?:(?!<\/li>).)*)<\/li>/s.exec(page.text)?.[1]
  expect(current).toContain("Firefox on Linux")
  expect(current).toContain('action="/logout"')
  expect(current).not.toContain('name="id"')
  expect(page.text).toContain("Chrome on Windows")
  expect(page.text.match(/signed in with the demo account \(username and password\)/g)).toHaveLength(3)
  expect(page.text.match(/last seen <time datetime="[^"]+" title="[^"]+">just now<\/time>/g)).toHaveLength(3)
  expect(sessionIds(page.text)).toHaveLength(2)
  expect(page.text).toContain("Sign out other devices")
  // Never a token: neither the cookie's value nor its stored hash.
  expect(page.text).not.toContain(firefox.split("authjs.session-token=")[1]!.split(";")[0])
  expect(page.text).not.toMatch(/sha256:/)
  // The hostile User-Agent is text, not markup.
  expect(page.text).toContain("&lt;script&gt;alert(&quot;ua&quot;)&lt;/script&gt;&quot;&gt;&lt;img src=x&gt;")
  expect(page.text).not.toContain("<script>alert")
  expect(page.text).not.toContain("<img src=x>")
})

test('"Sign out other devices" leaves only this session, and the others are refused from their next request', async () => {
  const mine = await signInAs(FIREFOX)
  const second = await signInAs(CHROME_WINDOWS)
  const third = await signInAs("curl/8.5.0")
  const before = await sessionsPage(mine)
  expect(sessionCount(before.text)).toBe(3)

  const revoke = await request(app)
    .post("/account/sessions/revoke-others")
    .set("Cookie", mine)
    .set("Sec-Fetch-Site", "same-origin")
    .type("form")
    .send({ csrfToken: formToken(before.text) })
  expect(revoke.status).toBe(303)
  expect(revoke.headers.location).toBe("/account/sessions?done=others")
  // This session's cookie is left alone.
  expect(revoke.headers["set-cookie"]).toBeUndefined()

  const after = await sessionsPage(mine)
  expect(sessionCount(after.text)).toBe(1)
  expect(after.text).toContain("You have 1 active session.")
  expect(after.text).toContain("This is your only session.")
  expect(after.text).not.toContain("Sign out other devices")
  const done = await request(app).get("/account/sessions?done=others").set("Cookie", mine)
  expect(done.text).toContain('<div class="notice" role="status"><p>Your other sessions were signed out.</p></div>')
  expect(await apiStatus(mine)).toBe(200)
  expect(await apiStatus(second)).toBe(401)
  expect(await apiStatus(third)).toBe(401)
})

test("per-session Sign out ends that one session only; an unknown id is a 404 and changes nothing", async () => {
  const mine = await signInAs(FIREFOX)
  const second = await signInAs(CHROME_WINDOWS)
  const third = await signInAs("curl/8.5.0")
  const page = await sessionsPage(mine)
  const token = formToken(page.text)
  // Newest first: the curl session, then Chrome.
  const [thirdId, secondId] = sessionIds(page.text)
  expect(page.text.indexOf("curl")).toBeLessThan(page.text.indexOf("Chrome on Windows"))

  const revoke = await request(app)
    .post("/account/sessions/revoke")
    .set("Cookie", mine)
    .type("form")
    .send({ csrfToken: token, id: secondId })
  expect(revoke.status).toBe(303)
  expect(revoke.headers.location).toBe("/account/sessions?done=one")
  expect(await apiStatus(second)).toBe(401)
  expect(await apiStatus(third)).toBe(200)
  expect(await apiStatus(mine)).toBe(200)

  for (const id of [secondId, "not-a-session-id", ""]) {
    const missing = await request(app)
      .post("/account/sessions/revoke")
      .set("Cookie", mine)
      .type("form")
      .send({ csrfToken: token, id })
    expect(missing.status).toBe(404)
    expect(missing.text).toContain("No such session: it may have ended already.")
  }
  const noId = await request(app).post("/account/sessions/revoke").set("Cookie", mine).type("form").send({
    csrfToken: token,
  })
  expect(noId.status).toBe(404)
  expect(sessionCount((await sessionsPage(mine)).text)).toBe(2)
  expect(sessionIds((await sessionsPage(mine)).text)).toEqual([thirdId])
})

test("a missing, wrong or foreign form token, or a cross-site post, is refused with 403 and changes nothing", async () => {
  const mine = await signInAs(FIREFOX)
  const other = await signInAs(CHROME_WINDOWS)
  const myPage = await sessionsPage(mine)
  const otherToken = formToken((await sessionsPage(other)).text)
  const myToken = formToken(myPage.text)
  expect(myToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
  expect(otherToken).not.toBe(myToken)
  const [otherId] = sessionIds(myPage.text)

  const attempts = [
    { fields: {}, site: undefined },
    { fields: { csrfToken: "" }, site: undefined },
    { fields: { csrfToken: `${myToken}x` }, site: undefined },
    { fields: { csrfToken: otherToken }, site: undefined },
    { fields: { csrfToken: myToken }, site: "cross-site" },
    { fields: { csrfToken: myToken }, site: "same-site" },
  ]
  for (const { fields, site } of attempts) {
    for (const [path, extra] of [
      ["/account/sessions/revoke-others", {}],
      ["/account/sessions/revoke", { id: otherId }],
    ] as const) {
      let post = request(app).post(path).set("Cookie", mine)
      if (site) post = post.set("Sec-Fetch-Site", site)
      const res = await post.type("form").send({ ...fields, ...extra })
      expect({ path, fields, site, status: res.status }).toEqual({ path, fields, site, status: 403 })
      expect(res.text).toContain("nothing was changed")
      expect(res.headers["set-cookie"]).toBeUndefined()
    }
  }
  expect(sessionCount((await sessionsPage(mine)).text)).toBe(2)
  expect(await apiStatus(other)).toBe(200)
})

test("the notice is one of two fixed sentences: any other done value shows nothing and is never reflected", async () => {
  const mine = await signInAs(FIREFOX)
  const one = await request(app).get("/account/sessions?done=one").set("Cookie", mine)
  expect(one.text).toContain("That session was signed out.")
  for (const done of ["<script>alert(1)</script>", "constructor", "__proto__", "toString", "ONE"]) {
    const page = await request(app)
      .get(`/account/sessions?done=${encodeURIComponent(done)}`)
      .set("Cookie", mine)
    expect(page.status).toBe(200)
    expect(page.text).not.toContain('class="notice"')
    expect(page.text).not.toContain(done)
  }
})

describe("describeUserAgent", () => {
  it.each([
    [FIREFOX, "Firefox on Linux"],
    [CHROME_WINDOWS, "Chrome on Windows"],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36 Edg/140.0",
      "Edge on Windows",
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
      "Safari on iOS",
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Version/18.0 Safari/605.1.15",
      "Safari on macOS",
    ],
    ["Mozilla/5.0 (Linux; Android 15) AppleWebKit/537.36 Chrome/140.0 Mobile Safari/537.36", "Chrome on Android"],
    ["curl/8.5.0", "curl"],
    ["Mozilla/5.0 (X11; Linux x86_64)", "Linux"],
    ["something else", "Unknown device"],
    ["", "Unknown device"],
    [undefined, "Unknown device"],
  ])("%s is %s", (agent, words) => {
    expect(describeUserAgent(agent)).toBe(words)
  })
})
