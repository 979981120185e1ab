/**
 * Validation of the options kube-apiserver decodes from a write's query and DeleteOptions body
 * (pkg/apis/meta/v1/validation: ValidateCreateOptions, ValidateUpdateOptions, ValidatePatchOptions,
 * ValidateDeleteOptions): a bad dryRun value, a fieldManager over 128 bytes, force on a non-apply patch, an unknown
 * fieldValidation or propagationPolicy, or orphanDependents together with propagationPolicy answer 422 Invalid on the options kind (`CreateOptions.meta.k8s.io
 * "" is invalid: ...`).
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { invalidOptions } from "../status_errors.ts";
import { byteLength } from "./object_meta.ts";
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong } from "./field_errors.ts";

const OPTIONS_KIND: Record<string, string> = {
  create: "CreateOptions",
  update: "UpdateOptions",
  patch: "PatchOptions",
  delete: "DeleteOptions",
  deletecollection: "DeleteOptions",
};

/** DeleteOptions.propagationPolicy values (and the "nil" kube lists for an unset one). */
const PROPAGATION_POLICIES = ["Foreground", "Background", "Orphan", "nil"];

function dryRunCauses(dryRun: string[]): StatusCause[] {
  return dryRun.length > 0 && !dryRun.every((v) => v === "All") ? [fieldNotSupported("dryRun", dryRun, ["All"])] : [];
}

/** ValidateFieldManager: at most 128 bytes, every character printable (Go's unicode.IsPrint). */
function fieldManagerCauses(manager: string | null): StatusCause[] {
  if (manager === null) return [];
  const causes = byteLength(manager) > 128 ? [fieldTooLong("fieldManager", 128)] : [];
  let at = 0;
  for (const ch of manager) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
      causes.push(fieldInvalid("fieldManager", manager, `invalid character U+${code} (at position ${at})`));
    }
    at += byteLength(ch);
  }
  return causes;
}

/** The `fieldValidation` values kube accepts (sets.List order). */
const FIELD_VALIDATION = ["", "Ignore", "Strict", "Warn"];

/** The patch types of server-side apply. */
const APPLY_PATCH_TYPES = ["application/apply-patch+yaml", "application/apply-patch+cbor"];

/**
 * Throws 422 for a write's options as kube's ValidateCreateOptions/UpdateOptions/PatchOptions check them, in their
 * order: for a patch, `force` on a non-apply patch (any value: it is set) or an apply without `fieldManager`; then a
 * `fieldManager` over 128 bytes or with unprintable characters, a `dryRun` other than `All`, an unknown
 * `fieldValidation` (delete checks its dryRun in {@link checkDeleteOptions}). `patchType` is the PATCH's media type.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkWriteOptions } from "./request_options.ts";
 * assert.throws(() => checkWriteOptions("create", new URLSearchParams("dryRun=Bogus")), /CreateOptions/);
 * assert.throws(
 *   () => checkWriteOptions("patch", new URLSearchParams("force=true"), "application/merge-patch+json"),
 *   /force: Forbidden: may not be specified for non-apply patch/,
 * );
 * ```
 */
export function checkWriteOptions(verb: string, query: URLSearchParams, patchType?: string): void {
  const kind = OPTIONS_KIND[verb];
  if (!kind) return;
  const causes: StatusCause[] = [];
  const manager = query.get("fieldManager");
  if (verb === "patch" && patchType !== undefined) {
    if (!APPLY_PATCH_TYPES.includes(patchType)) {
      if (query.has("force")) causes.push(fieldForbidden("force", "may not be specified for non-apply patch"));
    } else if (!manager) causes.push(fieldRequired("fieldManager", "is required for apply patch"));
  }
  causes.push(...fieldManagerCauses(manager), ...dryRunCauses(query.getAll("dryRun")));
  const validation = query.get("fieldValidation");
  if (validation !== null && !FIELD_VALIDATION.includes(validation)) {
    causes.push(fieldNotSupported("fieldValidation", validation, FIELD_VALIDATION));
  }
  if (causes.length) throw invalidOptions(kind, causes, verb);
}

/** Throws 422 for DeleteOptions kube refuses: bad dryRun, unknown propagationPolicy, or it with orphanDependents. */
export function checkDeleteOptions(
  verb: string,
  opts: { dryRun: string[]; propagationPolicy?: string; orphanDependents?: boolean },
): void {
  const causes = dryRunCauses(opts.dryRun);
  const policy = opts.propagationPolicy;
  if (opts.orphanDependents !== undefined && policy !== undefined) {
    causes.push(
      fieldInvalid("propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set"),
    );
  }
  if (policy !== undefined && !PROPAGATION_POLICIES.slice(0, 3).includes(policy)) {
    causes.push(fieldNotSupported("propagationPolicy", policy, PROPAGATION_POLICIES));
  }
  if (causes.length) throw invalidOptions(OPTIONS_KIND[verb] ?? "DeleteOptions", causes, verb);
}
