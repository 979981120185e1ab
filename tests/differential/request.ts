/**
 * One request of the differential battery and the per-target values later requests of its sequence use.
 * @module
 */

// deno-lint-ignore no-explicit-any
type Any = any;

/** Values one target's answers gave (a resourceVersion, a continue token), per sequence. */
export type Vars = Record<string, string>;

/** How two answers are compared. */
export type Shape =
  /** Status code, media type and the normalised body. */
  | "full"
  /** Status code and media type only (the body carries per-run bytes: protobuf). */
  | "code";

/** One request, sent the same way to both targets. */
export interface DiffRequest {
  /** The class it counts in: create-valid, create-invalid, get, list, update, patch, delete, watch, … */
  area: string;
  /** What it checks, e.g. "create with an unknown field (Strict)". */
  name: string;
  method: string;
  /** The path and query (built from this target's {@link Vars}). */
  path: (v: Vars) => string;
  accept?: string;
  contentType?: string;
  /** JSON (a string is sent as is). */
  body?: (v: Vars) => unknown;
  /** Remembers values of this target's answer for later requests. */
  capture?: (body: Any, v: Vars) => void;
  shape?: Shape;
  /** Compare the Warning headers too (deprecation warnings left out). */
  warnings?: boolean;
  /** Before sending: waits until this target is ready for the request (a CRD Established). */
  ready?: (send: (method: string, path: string) => Promise<{ code: number; body: Any }>) => Promise<void>;
}

/** Requests that run in order on each target, the same resource's. */
export interface Sequence {
  /** `group/version/plural` (core group empty), or a topic. */
  resource: string;
  requests: DiffRequest[];
}
