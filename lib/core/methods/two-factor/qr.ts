/** The enrolment QR code: an SVG document rendered in this process by the optional dependency `uqr`, loaded lazily. */
import type { LoggerInstance } from "../../../logger"

type RenderSvg = (data: string, options: { ecc: "M"; border: number }) => string

let loading: Promise<RenderSvg | null> | undefined
const warned = new WeakSet<LoggerInstance>()

/**
 * The QR code of `uri` as an SVG document (error correction M, quiet zone 4 modules), or `null` when `uqr` is not
 * installed (`totp-qr-unavailable` is logged once).
 *
 * @example
 * ```ts
 * const svg = await qrSvg("otpauth://totp/…", logger)
 * ```
 */
export async function qrSvg(uri: string, logger: LoggerInstance): Promise<string | null> {
  loading ??= import("uqr").then(
    (mod) => (mod as { renderSVG: RenderSvg }).renderSVG,
    () => null,
  )
  const render = await loading
  if (!render) {
    if (!warned.has(logger)) {
      warned.add(logger)
      logger.warn("totp-qr-unavailable")
    }
    return null
  }
  return render(uri, { ecc: "M", border: 4 })
}
