/**
 * Durations as Kubernetes prints them: apimachinery's `duration.HumanDuration` (the AGE format of `kubectl get`:
 * `59s`, `2m3s`, `45m`, `3h5m`, `23h`, `3d4h`, `400d`, `2y10d`), and Go's `time.Duration.String()` (`1h2m3.5s`), as
 * metav1.Duration fields serialise.
 * @module
 */

/**
 * Formats a duration the way kube-apiserver's table printers do.
 *
 * @example
 * ```ts
 * import { humanDuration } from "./durations.ts";
 * humanDuration(123_000); // "2m3s"
 * ```
 */
export function humanDuration(durationMs: number): string {
  const seconds = Math.trunc(durationMs / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * AGE of an object: `<unknown>` without a creation timestamp, else {@link humanDuration} of `nowMs - created`.
 */
export function ageOf(creationTimestamp: string | undefined, nowMs: number): string {
  if (!creationTimestamp) return "<unknown>";
  const created = Date.parse(creationTimestamp);
  if (Number.isNaN(created)) return "<invalid>";
  return humanDuration(nowMs - created);
}

/**
 * Go's `time.Duration.String()` for a duration in nanoseconds (`0s`, `1.5s`, `2m0s`, `1h0m0s`); sub-second
 * durations are written in seconds, as metav1.Duration's JSON form is read back by kube either way.
 *
 * @example
 * ```ts
 * import { formatGoDuration } from "./durations.ts";
 * formatGoDuration(90e9); // "1m30s"
 * ```
 */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return "0s";
  const sign = ns < 0 ? "-" : "";
  let rest = Math.abs(ns) / 1e9;
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  rest -= m * 60;
  const s = Number(rest.toFixed(9)).toString();
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}
