/**
 * All CustomResourceDefinitions of the seed systems, in a stable order: the source of `kubeop crds` and crds/*.yaml.
 *
 * A version that needs kubeop's conversion webhook is served only where that webhook answers: the CRDs as printed
 * (and as crds/ holds them) serve only versions kube-apiserver can read without a webhook. {@link WEBHOOK_VERSIONS}
 * lists, per converting CRD, the versions added next to the webhook — by deploy/'s kustomize patch
 * ({@link conversionPatch}, written by `kubeop webhooks --out-dir deploy/webhook`) and by `kubeop dev`
 * (`crdManifests({ converting })`) — never as the storage version, so they can be removed again at any time.
 * @module
 */

import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from "../runtime/builtin_types.ts";
import { crdConversion, type WebhookServiceRef } from "../runtime/webhook/manifests.ts";
import { atCrds, atWebhookVersions } from "./at/schema.ts";
import { machineCrds } from "./machine/schema.ts";
import { multiSecretCrds } from "./multisecret/schema.ts";
import { netperfCrds } from "./netperf/schema.ts";

/**
 * Per converting CRD (`<plural>.<group>`): the versions served only next to kubeop's conversion webhook.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WEBHOOK_VERSIONS } from "./crds.ts";
 * assert.deepEqual(Object.keys(WEBHOOK_VERSIONS), ["ats.cnat.ishankhare.dev"]);
 * ```
 */
export const WEBHOOK_VERSIONS: Readonly<Record<string, () => CustomResourceDefinitionVersion[]>> = {
  "ats.cnat.ishankhare.dev": atWebhookVersions,
};

/** Options of {@link crdManifests}. */
export interface CrdManifestOptions {
  /** CRD names whose conversion webhook is served: these get their {@link WEBHOOK_VERSIONS} and conversion stanza. */
  converting?: readonly string[];
  /** Where the conversion stanza points (default the `kubeop-webhook` Service in `kubeop-system`). */
  webhook?: WebhookServiceRef;
}

/**
 * `crd` with its webhook-converted versions and the conversion stanza (unchanged when it converts nothing).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { atCrds } from "./at/schema.ts";
 * import { withConversion } from "./crds.ts";
 * const [at] = atCrds();
 * assert.deepEqual(withConversion(at).spec.versions.map((v) => v.name), ["v1alpha1", "v1beta1"]);
 * assert.equal(at.spec.versions.length, 1, "the argument is not changed");
 * ```
 */
export function withConversion(crd: CustomResourceDefinition, ref: WebhookServiceRef = {}): CustomResourceDefinition {
  const extra = WEBHOOK_VERSIONS[crd.metadata.name!];
  if (!extra) return crd;
  return {
    ...crd,
    spec: { ...crd.spec, versions: [...crd.spec.versions, ...extra()], conversion: crdConversion(ref) },
  } as CustomResourceDefinition;
}

/** One RFC 6902 operation of a kustomize `patches:` entry. */
export interface JsonPatchAdd {
  /** Always `add`. */
  op: "add";
  /** Where, as a JSON pointer. */
  path: string;
  /** What. */
  value: unknown;
}

/**
 * The RFC 6902 patch that turns the CRD `name` as printed into {@link withConversion}'s form: appends each webhook
 * version and adds the conversion stanza. deploy/kustomization.yaml applies it (the file is
 * deploy/webhook/`<name>`.conversion.yaml), as kubebuilder's config/crd/patches/webhook_in_*.yaml do.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { conversionPatch } from "./crds.ts";
 * const ops = conversionPatch("ats.cnat.ishankhare.dev");
 * assert.deepEqual(ops.map((o) => o.path), ["/spec/versions/-", "/spec/conversion"]);
 * ```
 */
export function conversionPatch(name: string, ref: WebhookServiceRef = {}): JsonPatchAdd[] {
  const extra = WEBHOOK_VERSIONS[name];
  if (!extra) throw new Error(`CRD ${name} has no webhook-converted versions`);
  return [
    ...extra().map((value): JsonPatchAdd => ({ op: "add", path: "/spec/versions/-", value })),
    { op: "add", path: "/spec/conversion", value: crdConversion(ref) },
  ];
}

/**
 * Every CRD the four controllers serve; by default as printed (no version that needs a webhook). `converting` names
 * the CRDs whose conversion webhook is served: those come with their webhook versions and conversion stanza.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { crdManifests } from "./crds.ts";
 * assert.ok(crdManifests().some((c) => c.metadata.name === "machines.useless.container.training"));
 * assert.ok(crdManifests().every((c) => c.spec.conversion === undefined));
 * const at = crdManifests({ converting: ["ats.cnat.ishankhare.dev"] }).find((c) => c.spec.names.kind === "At")!;
 * assert.equal(at.spec.conversion?.strategy, "Webhook");
 * ```
 */
export function crdManifests(opts: CrdManifestOptions = {}): CustomResourceDefinition[] {
  const converting = new Set(opts.converting ?? []);
  return [...machineCrds(), ...atCrds(), ...netperfCrds(), ...multiSecretCrds()].map((crd) =>
    converting.has(crd.metadata.name!) ? withConversion(crd, opts.webhook) : crd
  );
}
