// Type test, checked by `tsc --noEmit` (npm test): Gatehouse's Express augmentation on Express 5 and Express 4 types.
import type { NextFunction, Request, Response } from "express"
import type { Request as Request4, Response as Response4 } from "express4"
import type { Session } from "../../../lib/core/kernel/types"
import type { NodeRequest } from "../../../lib/express/convert"
import "../../../lib/express/augment"

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function assertType<T extends true>(): T | void {}

export function express5Handler(req: Request, res: Response, next: NextFunction): void {
  assertType<Equal<typeof req.auth, Session | null | undefined>>()
  assertType<Equal<typeof req.user, Express.User | undefined>>()
  assertType<Equal<typeof res.locals.session, Session | null | undefined>>()

  // @ts-expect-error -- the session may be missing until narrowed
  void req.auth.expires
  // @ts-expect-error -- the user may be missing until narrowed
  void req.user.email

  if (req.isAuthenticated()) {
    assertType<Equal<typeof req.auth, Session>>()
    assertType<Equal<typeof req.user, Express.User>>()
    const email: string | null | undefined = req.user.email
    const expires: string = req.auth.expires
    res.json({ email, expires })
    return
  }
  next()
}

export function express4Handler(req: Request4, res: Response4): void {
  assertType<Equal<typeof req.auth, Session | null | undefined>>()
  assertType<Equal<typeof res.locals.session, Session | null | undefined>>()
  if (req.isAuthenticated()) {
    const id: string | undefined = req.user.id
    res.json({ id, expires: req.auth.expires })
  }
}

export function userFields(user: Express.User): Array<string | null | undefined> {
  // @ts-expect-error -- only the known user fields exist
  void user.password
  return [user.id, user.name, user.email, user.image]
}

// Both versions' requests are accepted by the converters.
export const converterInputs: NodeRequest[] = [{} as Request, {} as Request4]
