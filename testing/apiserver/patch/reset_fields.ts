/**
 * Which fields of a write no manager comes to own because the kind's strategy resets them (kube: each strategy's
 * `GetResetFields`, stripped by the field manager before it compares): by default `status` on the main resource of
 * a kind with a status subresource and everything but `status` through the subresource; a kind listed here resets
 * its own paths instead (a CertificateSigningRequest's spec is the requester's identity and the request, which only
 * the strategy writes).
 * @module
 */
import type { FieldPath } from "../../../runtime/apimachinery/managed_fields.ts";
import type { ResourceDef } from "../resource_def.ts";
import type { FieldsOfOptions } from "./fieldset.ts";

/** Reset paths by `group/Kind`, for writes of the main resource and of the status subresource. */
const RESET: Record<string, { main: FieldPath[]; status: FieldPath[] }> = {
  // pkg/registry/certificates/certificates/strategy.go: csrStrategy and csrStatusStrategy GetResetFields.
  "certificates.k8s.io/CertificateSigningRequest": {
    main: [["f:spec"], ["f:status"]],
    status: [["f:spec"], ["f:status", "f:conditions"]],
  },
};

/**
 * The {@link FieldsOfOptions} of a write of `def` (through `subresource`): the fields its managers may own.
 * `statusSubresource` says whether main-resource writers leave status alone (default: `def` has the subresource).
 *
 * @example
 * ```ts
 * import { resetFieldsOptions } from "./reset_fields.ts";
 * const csr = { group: "certificates.k8s.io", kind: "CertificateSigningRequest", subresources: ["status"] };
 * console.assert(resetFieldsOptions(csr).reset?.[0][0] === "f:spec");
 * console.assert(resetFieldsOptions({ group: "", kind: "Pod", subresources: ["status"] }).status === "exclude");
 * ```
 */
export function resetFieldsOptions(
  def: Pick<ResourceDef, "group" | "kind" | "subresources">,
  subresource?: string,
  statusSubresource = def.subresources.includes("status"),
): FieldsOfOptions {
  const own = RESET[`${def.group}/${def.kind}`];
  if (own) return { status: "include", reset: subresource === "status" ? own.status : own.main };
  if (subresource === "status") return { status: "only" };
  return { status: statusSubresource ? "exclude" : "include" };
}
