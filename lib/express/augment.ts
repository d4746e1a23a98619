/**
 * Adds Gatehouse's fields to Express's global types: `req.auth`, `req.user`, `res.locals.session`,
 * `req.isAuthenticated()`. An app types its own session and user fields once, for all three:
 *
 * ```ts
 * declare module "gatehouse-auth" {
 *   interface Session { role: "admin" | "member" }
 *   interface User { plan: string }
 * }
 * ```
 */
import type { Session, User as SessionUser } from "../core"

/** `T` without its index signatures: only the members it declares. */
type DeclaredFields<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : symbol extends K ? never : K]: T[K]
}

/**
 * The fields of Gatehouse's `User` that `req.user` has. Named at the top level (outside `namespace Express`, whose own
 * `User` would shadow the import once declarations are bundled into one file).
 */
type GatehouseRequestUser = DeclaredFields<SessionUser>

// The declarations below merge with those of @types/express and, when an app has it, @types/passport. Every member
// that @types/passport also declares (`user`, `isAuthenticated`, `AuthenticatedRequest.user`) is declared here with
// exactly the same type, which is what TypeScript requires of merged declarations, so the two compile side by side.
declare global {
  // A global namespace merge is the only way to extend Express's request and locals types.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    /**
     * The signed-in user as Gatehouse puts it on `req.user`: the session's `user`, so fields added with
     * `declare module "gatehouse-auth" { interface User { ... } }` appear here too.
     */
    // An interface (not a type alias) so that apps and @types/passport can merge their own members into it. The
    // session user's index signature is left out: only declared fields exist on `req.user`.
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface User extends GatehouseRequestUser {}

    interface Request {
      /**
       * The session, once Gatehouse has read it (`app.use(auth)`, `auth(handler)`, `auth(req)`, `requireAuth()`,
       * `getSession()`): `null` when there is none.
       */
      auth?: Session | null
      /** The session's user, set wherever `req.auth` is. */
      user?: User | undefined
      /**
       * Whether the request has a signed-in user; narrows `req.user` and `req.auth` to non-null when it does.
       *
       * @example
       * ```ts
       * app.get("/me", (req, res) => {
       *   if (!req.isAuthenticated()) return res.sendStatus(401)
       *   res.json({ email: req.user.email, expires: req.auth.expires })
       * })
       * ```
       */
      isAuthenticated(): this is AuthenticatedRequest
    }

    /** A request `req.isAuthenticated()` answered `true` for. */
    interface AuthenticatedRequest extends Request {
      user: User
      auth: Session
    }

    interface Locals {
      /** The session, set wherever `req.auth` is. */
      session?: Session | null
    }
  }
}

export {}
