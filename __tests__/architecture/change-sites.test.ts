// One refusal of impersonation (accounts.md §3.5): every function of the sign-in methods' rooms that reads who is
// signed in and changes user data gets that user through the accessor for changes (`principalForChange`,
// `userForChange`, `subjectForChange`), which refuses an impersonation session. Found by binding and followed through
// the rooms' own helpers with the TypeScript checker, so a new changing site without the accessor fails here.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type ts from "typescript"
import { filesUsing, programOf } from "./bindings"
import { changeSites } from "./change-sites"
import { LIB, sourceFiles } from "./graph"

/** The adapter methods that change a user, their accounts, passkeys, second factor or password. */
const WRITERS = [
  "createUser",
  "updateUser",
  "deleteUser",
  "linkAccount",
  "unlinkAccount",
  "createAuthenticator",
  "updateAuthenticator",
  "deleteAuthenticator",
  "upsertTwoFactor",
  "updateTwoFactor",
  "deleteTwoFactor",
  "setPasswordHash",
] as const

const RULE = {
  writers: WRITERS,
  doorReaders: [
    { file: join(LIB, "core/session/principal.ts"), names: ["currentPrincipal", "signedInUser"] },
    { file: join(LIB, "core/session/subject.ts"), names: ["requireSubject"] },
  ],
  accessors: [
    { file: join(LIB, "core/session/for-change.ts"), names: ["principalForChange", "userForChange"] },
    { file: join(LIB, "core/session/subject.ts"), names: ["subjectForChange"] },
  ],
}

/**
 * Functions that read the door and write, but do not change the signed-in user: what they write is authorised
 * otherwise, and the door is read for something else.
 */
const NOT_CHANGES: Record<string, string> = {
  // An email sign-in writes the user its link names; the door is read to end another user's database session.
  "core/methods/email/email.ts#completeEmailSignIn": "sign-in",
  "core/methods/email/email.ts#emailCallback": "sign-in",
  // The mailed link's token authorises the change; the door is read to keep the browser's own session.
  "core/methods/account/email-change.ts#verifyEmailChange": "mailed link",
  "core/methods/account/routes.ts#linkRoute": "mailed link",
}

let program: ts.Program | undefined
const programOfLib = () => (program ??= programOf(sourceFiles(LIB)))

describe("one refusal of impersonation for every change", () => {
  const all = () => changeSites(programOfLib(), LIB, join(LIB, "core/methods"), RULE)
  const sites = () => all().filter((s) => s.writers.length > 0)

  it("the walker sees the changing sites (control)", () => {
    const found = sites()
      .filter((s) => s.usesAccessor)
      .map((s) => s.site)
    expect(found).toEqual(
      expect.arrayContaining([
        "core/methods/account/admin-users.ts#banUser",
        "core/methods/account/unlink.ts#unlinkAccount",
        "core/methods/oauth/link-account.ts#linkOrRegister",
        "core/methods/oauth/link-flow.ts#finishLink",
        "core/methods/password/change.ts#changePasswordAction",
        "core/methods/two-factor/manage.ts#enableTotp",
        "core/methods/webauthn/callback.ts#register",
        "core/methods/webauthn/manage.ts#deletePasskey",
        "core/methods/webauthn/manage.ts#renamePasskey",
      ]),
    )
  })

  it("every function of core/methods/ that reads who is signed in and writes user data goes through the accessor", () => {
    const unguarded = sites()
      .filter((s) => s.readsDoor && !s.usesAccessor && NOT_CHANGES[s.site] === undefined)
      .map((s) => `${s.site} (${s.writers.join(", ")})`)
    expect(unguarded).toEqual([])
  })

  it("the exceptions are still what they say: each reads the door and writes without the accessor", () => {
    const bySite = new Map(sites().map((s) => [s.site, s]))
    for (const site of Object.keys(NOT_CHANGES)) {
      const found = bySite.get(site)
      expect([site, found?.readsDoor, found?.usesAccessor]).toEqual([site, true, false])
    }
  })

  it("the calls that mint a credential or ask for a passkey to be added go through the accessor too", () => {
    // They write no user row, so the rule above cannot find them: an access token, a native app's code and passkey
    // registration options would all act for the user without carrying the impersonation (accounts.md §3.5).
    const bySite = new Map(all().map((s) => [s.site, s.usesAccessor]))
    const minting = [
      "core/methods/native/confirm.ts#allow",
      "core/methods/native/confirm.ts#nativeAction",
      "core/methods/tokens/issue.ts#issueAccessToken",
      "core/methods/webauthn/options.ts#webAuthnOptionsAction",
    ]
    expect(minting.map((site) => [site, bySite.get(site)])).toEqual(minting.map((site) => [site, true]))
  })

  it("no room outside core/session/ refuses impersonation itself", () => {
    const sources = sourceFiles(LIB).map((f) => f.slice(LIB.length + 1))
    const code = (file: string) => readFileSync(join(LIB, file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")
    const raising = sources.filter((file) => /new ImpersonationRestricted\(/.test(code(file)))
    expect(raising).toEqual(["core/session/for-change.ts"])
    // Outside the session room, who impersonates is read only to rate-limit the admin who stops impersonating.
    const readers = filesUsing(programOfLib(), LIB, join(LIB, "core/session/principal.ts"), "impersonatorOf")
    expect(readers.filter((file) => !file.startsWith("core/session/"))).toEqual([
      "core/methods/account/admin-impersonate.ts",
    ])
  })
})
