/**
 * CustomResourceDefinitions: the required fields and the `<plural>.<group>` name are validated, and — because the
 * fake serves a CRD's kinds at once (testing/crd.ts) — the status kube-apiserver's naming and establishing
 * controllers would write follows every write of the main resource: acceptedNames, NamesAccepted and Established
 * (kubectl wait --for=condition=Established works at once) and storedVersions.
 * @module
 */
import type { StatusCause } from "../../runtime/errors.ts";
import type { KubeObject } from "../../runtime/types.ts";
import { resourceId } from "../../runtime/apimachinery/names.ts";
import { rfc3339 } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";

function validateCrd(crd: KubeObject, ctx: StrategyContext): StatusCause[] {
  if (ctx.subresource === "status") return [];
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const name = crd.metadata.name ?? "";
  const causes: StatusCause[] = [];
  if (!spec.group) causes.push({ reason: "FieldValueRequired", message: "Required value", field: "spec.group" });
  if (!names.plural) {
    causes.push({ reason: "FieldValueRequired", message: "Required value", field: "spec.names.plural" });
  }
  if (!names.kind) causes.push({ reason: "FieldValueRequired", message: "Required value", field: "spec.names.kind" });
  if (!Array.isArray(spec.versions) || spec.versions.length === 0) {
    causes.push({
      reason: "FieldValueRequired",
      message: "Required value: must have exactly one version marked as storage version",
      field: "spec.versions",
    });
  }
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster") {
    causes.push({
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${JSON.stringify(spec.scope)}: supported values: "Cluster", "Namespaced"`,
      field: "spec.scope",
    });
  }
  if (names.plural && spec.group && name !== resourceId({ group: spec.group, plural: names.plural })) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${JSON.stringify(name)}: must be spec.names.plural+"."+spec.group`,
      field: "metadata.name",
    });
  }
  return causes;
}

/** The status the naming and establishing controllers settle on; transition times kept from `old`. */
function acceptedStatus(crd: KubeObject, old: KubeObject | undefined, nowMs: number): Record<string, unknown> {
  const spec = crd.spec;
  const names = spec.names;
  const now = rfc3339(nowMs);
  const conditions = old?.status?.conditions as KubeObject[] | undefined;
  const since = (type: string) => conditions?.find((c) => c.type === type)?.lastTransitionTime ?? now;
  const storage = spec.versions.find((v: KubeObject) => v.storage) ?? spec.versions[0];
  const stored = new Set<string>([...(old?.status?.storedVersions ?? []), storage.name]);
  return {
    acceptedNames: {
      plural: names.plural,
      singular: names.singular ?? String(names.kind).toLowerCase(),
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      ...(names.shortNames ? { shortNames: names.shortNames } : {}),
      ...(names.categories ? { categories: names.categories } : {}),
    },
    conditions: [
      {
        type: "NamesAccepted",
        status: "True",
        lastTransitionTime: since("NamesAccepted"),
        reason: "NoConflicts",
        message: "no conflicts found",
      },
      {
        type: "Established",
        status: "True",
        lastTransitionTime: since("Established"),
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
      },
    ],
    storedVersions: [...stored],
  };
}

/** The strategy of apiextensions.k8s.io/v1 customresourcedefinitions. */
export const CRDS: ResourceStrategy = {
  validate: validateCrd,
  validateUpdate: (next, _old, ctx) => validateCrd(next, ctx),
  canonicalize(crd: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): void {
    if (ctx.subresource === "status") return;
    crd.status = acceptedStatus(crd, old, ctx.clock.now());
  },
};
