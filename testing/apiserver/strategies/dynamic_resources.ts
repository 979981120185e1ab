/**
 * resource.k8s.io/v1 (dynamic resource allocation) kinds as kube-apiserver v1.37 stores them with no scheduler or
 * DRA controller running: a claim's `devices` is always present and its `requests` serialised as `null` when empty
 * (a nil slice without omitempty), a ResourceClaimTemplate's `spec.metadata` is always present, and a
 * DeviceTaintRule's taint gets its `timeAdded` when written without one (the current second, on updates too: kube
 * defaults it while decoding); the taint's key, value and effect are validated. A DELETE of a ResourceClaim,
 * ResourceClaimTemplate, ResourceSlice or DeviceClass answers with the object (ReturnDeletedObject); a write of a
 * claim's or a DeviceTaintRule's status keeps the stored labels and annotations.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { labelValueErrors, qualifiedNameErrors } from "../../../runtime/apimachinery/names.ts";
import { rfc3339 } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { fieldInvalid, fieldNotSupported, fieldRequired } from "../validation/field_errors.ts";

/** A ResourceClaimSpec's nil slices as Go serialises them. */
function defaultClaimSpec(spec: KubeObject | undefined): void {
  if (!spec || typeof spec !== "object") return;
  const devices = spec.devices;
  if (!devices || typeof devices !== "object") return;
  if (!Array.isArray(devices.requests) || devices.requests.length === 0) devices.requests = null;
}

/** resource.k8s.io/v1 resourceclaims. */
export const RESOURCE_CLAIMS: ResourceStrategy = {
  returnDeletedObject: true,
  default(claim: KubeObject): void {
    defaultClaimSpec(claim.spec);
  },
  // spec.devices is a struct: answered even when the claim was created without it.
  encode(claim: KubeObject): void {
    if (!claim.spec || typeof claim.spec !== "object") return;
    claim.spec.devices ??= { requests: null };
  },
};

/** resource.k8s.io/v1 resourceclaimtemplates. */
export const RESOURCE_CLAIM_TEMPLATES: ResourceStrategy = {
  returnDeletedObject: true,
  // spec, its metadata and the claim spec's devices are structs: answered even when the template was sent without.
  encode(template: KubeObject): void {
    if (!template.spec || typeof template.spec !== "object") template.spec = {};
    template.spec.metadata ??= {};
    if (!template.spec.spec || typeof template.spec.spec !== "object") template.spec.spec = {};
    template.spec.spec.devices ??= { requests: null };
  },
  default(template: KubeObject): void {
    if (!template.spec || typeof template.spec !== "object") return;
    template.spec.metadata ??= {};
    defaultClaimSpec(template.spec.spec);
  },
};

/** The decoder's default (SetDefaults_DeviceTaint): a taint without `timeAdded` gets the current second. */
function stampTaint(rule: KubeObject, ctx: StrategyContext): void {
  const taint = rule.spec?.taint;
  if (!taint || typeof taint !== "object" || taint.timeAdded) return;
  taint.timeAdded = rfc3339(ctx.clock.now());
}

/** resource.k8s.io/v1 resourceslices and deviceclasses: only stored, a DELETE answers with the object. */
export const RESOURCE_SLICES_AND_CLASSES: ResourceStrategy = { returnDeletedObject: true };

const TAINT_EFFECTS = ["NoExecute", "NoSchedule", "None"];

/**
 * A DeviceTaintRule's taint (kube's validateDeviceTaint): the key a qualified name, the value (when set) a label value,
 * the effect required and one of {@link TAINT_EFFECTS} — unless an update keeps the stored effect.
 */
function validateTaint(rule: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): StatusCause[] {
  if (ctx.subresource === "status") return [];
  const taint = rule.spec?.taint ?? {};
  const key = typeof taint.key === "string" ? taint.key : "";
  const causes = qualifiedNameErrors(key).map((msg) => fieldInvalid("spec.taint.key", key, msg));
  if (typeof taint.value === "string" && taint.value !== "") {
    causes.push(...labelValueErrors(taint.value).map((msg) => fieldInvalid("spec.taint.value", taint.value, msg)));
  }
  const effect = taint.effect ?? "";
  if (old?.spec?.taint?.effect !== effect) {
    if (effect === "") causes.push(fieldRequired("spec.taint.effect"));
    else if (!TAINT_EFFECTS.includes(effect)) {
      causes.push(fieldNotSupported("spec.taint.effect", effect, TAINT_EFFECTS));
    }
  }
  return causes;
}

/** resource.k8s.io/v1 devicetaintrules. */
export const DEVICE_TAINT_RULES: ResourceStrategy = {
  validate: (rule, ctx) => validateTaint(rule, undefined, ctx),
  validateUpdate: (next, old, ctx) => validateTaint(next, old, ctx),
  // Stamped while decoding, creates and updates alike (the writer owns it in managedFields): an update that leaves
  // it out changes the spec — bumping the generation — unless it lands in the stored stamp's second.
  default: (rule, ctx) => stampTaint(rule, ctx),
  // kube's PrepareForUpdate: a new effect sent with the stored timeAdded is stamped anew.
  prepareForUpdate(next, old, ctx) {
    const taint = next.spec?.taint;
    const before = old.spec?.taint;
    if (
      taint && typeof taint === "object" && taint.effect !== before?.effect && taint.timeAdded === before?.timeAdded
    ) {
      taint.timeAdded = rfc3339(ctx.clock.now());
    }
  },
};
