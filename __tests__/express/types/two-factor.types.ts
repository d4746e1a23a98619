// Type test, checked by `tsc --noEmit` (npm test): the Express and Fetch two-factor members are the core's, with the
// edge's request in place of the port; the Express read takes `res` optionally, as the guide documents.
import type { Request, Response } from "express"
import type { TotpEnrolment, TwoFactorStatus } from "../../../lib/core/pipeline/gatehouse"
import type { GatehouseInstance } from "../../../lib/express/types"
import type { WebGatehouse } from "../../../lib/web/types"

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function assertType<T extends true>(): T | void {}

export async function expressMembers(gatehouse: GatehouseInstance, req: Request, res: Response): Promise<void> {
  assertType<Equal<Awaited<ReturnType<typeof gatehouse.twoFactorStatus>>, TwoFactorStatus | null>>()
  await gatehouse.twoFactorStatus(req)
  await gatehouse.twoFactorStatus(req, res)
  const enrolment: TotpEnrolment = await gatehouse.enableTotp(req, res, { issuer: "Example" })
  void enrolment
  // @ts-expect-error -- a write needs `res` (it may re-issue the session cookie)
  await gatehouse.enableTotp(req)
  const { backupCodes } = await gatehouse.verifyTotpEnrolment(req, res, "123456")
  void backupCodes
  // @ts-expect-error -- the code is required
  await gatehouse.disableTotp(req, res)
  assertType<Equal<Awaited<ReturnType<typeof gatehouse.disableTotp>>, true>>()
  await gatehouse.regenerateBackupCodes(req, res, { code: "123456" })
}

export async function webMembers(gatehouse: WebGatehouse, request: globalThis.Request): Promise<void> {
  assertType<Equal<Parameters<typeof gatehouse.twoFactorStatus>, [request: globalThis.Request]>>()
  await gatehouse.enableTotp(request)
  await gatehouse.verifyTotpEnrolment(request, { code: "123456" })
  // @ts-expect-error -- the Fetch members take no `res`
  await gatehouse.disableTotp(request, {} as Response, { code: "123456" })
  assertType<Equal<Awaited<ReturnType<typeof gatehouse.regenerateBackupCodes>>, { backupCodes: string[] }>>()
}
