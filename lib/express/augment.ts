/** Adds Gatehouse's fields to Express's global types: `req.auth`, `req.user`, `res.locals.session`, `req.isAuthenticated()`. */
import type { Session } from "../core/types"

// The declarations below merge with those of @types/express and, when an app has it, @types/passport. Every member
// that @types/passport also declares (`user`, `isAuthenticated`, `AuthenticatedRequest.user`) is declared here with
// exactly the same type, which is what TypeScript requires of merged declarations, so the two compile side by side.
declare global {
  // A global namespace merge is the only way to extend Express's request and locals types.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    /** The signed-in user as Gatehouse puts it on `req.user` (the session's `user`). */
    interface User {
      id?: string
      name?: string | null
      email?: string | null
      image?: string | null
    }

    interface Request {
      /** The session, once `requireAuth()` or `getSession()` has read it: `null` when there is none. */
      auth?: Session | null
      /** The session's user, set by `requireAuth()`. */
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
      /** The session, set by `requireAuth()` before the route handler runs. */
      session?: Session | null
    }
  }
}

export {}
