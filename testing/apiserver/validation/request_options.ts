/**
 * Validation of the options kube-apiserver decodes from a write's query and DeleteOptions body
 * (pkg/apis/meta/v1/validation: ValidateCreateOptions, ValidateUpdateOptions, ValidatePatchOptions,
 * ValidateDeleteOptions): a bad dryRun value, a fieldManager over 128 bytes, an unknown propagationPolicy, or
 * orphanDependents together with propagationPolicy answer 422 Invalid on the options kind (`CreateOptions.meta.k8s.io
 * "" is invalid: ...`).
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { invalidOptions } from "../status_errors.ts";
import { byteLength } from "./object_meta.ts";
import { fieldInvalid, fieldNotSupported, fieldTooLong } from "./field_errors.ts";

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

/**
 * Throws 422 for a write's bad `dryRun` or `fieldManager` query parameters (create, update, patch; delete checks its
 * dryRun in {@link checkDeleteOptions}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkWriteOptions } from "./request_options.ts";
 * assert.throws(() => checkWriteOptions("create", new URLSearchParams("dryRun=Bogus")), /CreateOptions/);
 * ```
 */
export function checkWriteOptions(verb: string, query: URLSearchParams): void {
  const kind = OPTIONS_KIND[verb];
  if (!kind) return;
  const causes = dryRunCauses(query.getAll("dryRun"));
  const manager = query.get("fieldManager");
  if (manager !== null && byteLength(manager) > 128) causes.push(fieldTooLong("fieldManager", 128));
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
