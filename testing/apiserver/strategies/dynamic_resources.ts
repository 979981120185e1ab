/**
 * resource.k8s.io/v1 (dynamic resource allocation) kinds as kube-apiserver v1.37 stores them with no scheduler or
 * DRA controller running: a claim's `devices` is always present and its `requests` serialised as `null` when empty
 * (a nil slice without omitempty), a ResourceClaimTemplate's `spec.metadata` is always present, and a DeviceTaintRule's taint gets its
 * `timeAdded` when written without one (kept from the stored object on updates, else now).
 * @module
 */
import { rfc3339 } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";

/** A ResourceClaimSpec's nil slices as Go serialises them. */
function defaultClaimSpec(spec: KubeObject | undefined): void {
  if (!spec || typeof spec !== "object") return;
  const devices = spec.devices;
  if (!devices || typeof devices !== "object") return;
  if (!Array.isArray(devices.requests) || devices.requests.length === 0) devices.requests = null;
}

/** resource.k8s.io/v1 resourceclaims. */
export const RESOURCE_CLAIMS: ResourceStrategy = {
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
  default(template: KubeObject): void {
    if (!template.spec || typeof template.spec !== "object") return;
    template.spec.metadata ??= {};
    defaultClaimSpec(template.spec.spec);
  },
};

function stampTaint(rule: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): void {
  const taint = rule.spec?.taint;
  if (!taint || typeof taint !== "object" || taint.timeAdded) return;
  taint.timeAdded = old?.spec?.taint?.timeAdded ?? rfc3339(ctx.clock.now());
}

/** resource.k8s.io/v1 devicetaintrules. */
export const DEVICE_TAINT_RULES: ResourceStrategy = {
  // A create's stamp is the decoder's (the writer owns it in managedFields); an update keeps the stored one.
  default: (rule, ctx) => {
    if (ctx.verb === "create") stampTaint(rule, undefined, ctx);
  },
  prepareForUpdate: (next, old, ctx) => stampTaint(next, old, ctx),
};
