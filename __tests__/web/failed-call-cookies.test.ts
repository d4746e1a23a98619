// The Fetch flavour (docs/guide/fetch-runtimes.md): a server function that fails throws its error after queuing on the
// request the cookies its error answer carries; `applyCookies(request, response)` on the app's error answer sends
// them. Here a trusted device whose server-side sign-in fails after spending its trust cookie gets its trust back.
import { Gatehouse } from "../../lib/web"
import { AuthError } from "../../lib/errors"
import { fakeDateOnly } from "../fixtures/clock"
import { ORIGIN, applyCookies } from "../core/helpers"
import {
  CREDENTIALS,
  TRUST_MAX_AGE,
  trustName,
  trustSetup,
  trustedBrowser,
  type Jar,
} from "../core/two-factor/trusted-device"

const T0 = Date.parse("2026-03-01T10:00:00.000Z")
const HOUR = 3_600_000

/** A same-origin POST of the app's own login page (the origin guard passes), carrying the browser's cookies. */
const appRequest = (jar: Jar) =>
  new Request(`${ORIGIN}/login`, {
    method: "POST",
    headers: {
      origin: ORIGIN,
      cookie: Object.entries(jar)
        .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
        .join("; "),
    },
  })

describe("a failed server call in the Fetch flavour", () => {
  afterEach(() => jest.useRealTimers())

  it("queues its error answer's cookies (a trust handed back) for applyCookies; the error is thrown", async () => {
    fakeDateOnly(T0)
    const { config, key, broken } = await trustSetup()
    const gh = Gatehouse(config)
    const jar = await trustedBrowser(async (request) => (await gh.handle(request))!, key)
    const name = trustName(jar)

    jest.setSystemTime(T0 + HOUR)
    broken.on = true
    const request = appRequest(jar)
    const { callbackUrl: _, ...fields } = CREDENTIALS
    const error = await gh.signIn(request, "credentials", { ...fields, redirectTo: "/home" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AuthError)
    const answered = gh.applyCookies(request, Response.json({ error: (error as AuthError).type }, { status: 401 }))
    const restored = answered.headers.getSetCookie().find((line) => line.startsWith(`${name}=`))
    expect(restored).toMatch(new RegExp(`Max-Age=${TRUST_MAX_AGE - HOUR / 1000}(;|$)`))
    const kept = applyCookies(jar, answered)
    expect(kept[name]).toBeTruthy()
    expect(kept[name]).not.toBe(jar[name])
    // Applied once: the queue is empty afterwards.
    expect(gh.applyCookies(request, new Response(null)).headers.getSetCookie()).toEqual([])

    // The restored trust skips the second factor on the next server-side sign-in.
    broken.on = false
    const again = await gh.signIn(appRequest(kept), "credentials", { ...fields, redirectTo: "/home" })
    expect(again.headers.get("location")).toBe(`${ORIGIN}/home`)
  })
})
