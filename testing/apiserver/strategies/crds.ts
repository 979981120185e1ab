/**
 * CustomResourceDefinitions: the required fields and the `<plural>.<group>` name are validated, and — because the
 * fake serves a CRD's kinds at once (testing/apiserver/crd.ts) — the status kube-apiserver's naming and establishing
 * controllers would write follows every update of the main resource: acceptedNames, NamesAccepted and Established
 * and storedVersions. A create answers without conditions, as kube does; CrdController establishes the CRD right
 * after. Schemas are checked as apiextensions validation does (testing/apiserver/cel/crd_rules.ts: structural rules, CEL
 * rules and their estimated cost); singular, listKind and conversion are defaulted.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { resourceId } from "../../../runtime/apimachinery/names.ts";
import { deepEqual } from "../../../runtime/apimachinery/equality.ts";
import { schemaAtPath, validateCrdSchema } from "../cel/crd_rules.ts";
import { rfc3339 } from "../object_rules.ts";
import { CRD_CLEANUP_FINALIZER, setCrdCondition } from "../crd_conditions.ts";
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
  if (Array.isArray(spec.versions) && spec.versions.length > 0) causes.push(...versionCauses(spec.versions));
  if (names.plural && spec.group && name !== resourceId({ group: spec.group, plural: names.plural })) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${JSON.stringify(name)}: must be spec.names.plural+"."+spec.group`,
      field: "metadata.name",
    });
  }
  return causes;
}

/** Go's json.Marshal of the internal CustomResourceDefinitionVersion list (schemas hoisted to spec.validation). */
function goVersions(versions: KubeObject[]): string {
  return JSON.stringify(versions.map((v) => ({
    Name: v.name,
    Served: v.served ?? false,
    Storage: v.storage ?? false,
    Deprecated: v.deprecated ?? false,
    DeprecationWarning: v.deprecationWarning ?? null,
    Schema: null,
    Subresources: null,
    AdditionalPrinterColumns: null,
    SelectableFields: null,
  })));
}

/** kube's MaxSelectableFields. */
const MAX_SELECTABLE_FIELDS = 8;

/** A version's selectableFields: existing string/boolean/integer fields outside metadata, unique, at most 8. */
function selectableFieldCauses(version: KubeObject, at: string): StatusCause[] {
  const fields: { jsonPath?: string }[] = Array.isArray(version.selectableFields) ? version.selectableFields : [];
  const schema = version.schema?.openAPIV3Schema;
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  fields.forEach((f, j) => {
    const field = `${at}[${j}].jsonPath`;
    const path = f.jsonPath ?? "";
    if (!path) {
      causes.push({ reason: "FieldValueRequired", message: "Required value", field });
      return;
    }
    const found = schema ? schemaAtPath(schema, path) : undefined;
    if (!found) {
      const detail = "is an invalid path: does not refer to a valid field";
      causes.push({ reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(path)}: ${detail}`, field });
      return;
    }
    if (path.replace(/^\./, "").split(".")[0] === "metadata") {
      const detail = "must not point to fields in metadata";
      causes.push({ reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(path)}: ${detail}`, field });
    }
    if (!["string", "boolean", "integer"].includes(found.type)) {
      const detail =
        "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.";
      causes.push({ reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(path)}: ${detail}`, field });
    }
    const key = path.replace(/^\./, "");
    if (seen.has(key)) {
      causes.push({ reason: "FieldValueDuplicate", message: `Duplicate value: ${JSON.stringify(path)}`, field });
    }
    seen.add(key);
  });
  if (seen.size > MAX_SELECTABLE_FIELDS) {
    causes.push({
      reason: "FieldValueTooMany",
      message: `Too many: ${seen.size}: must have at most ${MAX_SELECTABLE_FIELDS} items`,
      field: at,
    });
  }
  return causes;
}

/** One storage version; each version's schema checked (structural rules, CEL rules and their cost). */
function versionCauses(versions: KubeObject[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const schemas = versions.map((v) => v.schema?.openAPIV3Schema);
  const shared = schemas.every((s) => deepEqual(s, schemas[0]));
  schemas.forEach((schema, i) => {
    if (!schema || (shared && i > 0)) return;
    const path = shared ? "spec.validation.openAPIV3Schema" : `spec.versions[${i}].schema.openAPIV3Schema`;
    causes.push(...validateCrdSchema(schema, path));
  });
  // As schemas, selectableFields shared by every version are validated once, as spec.selectableFields.
  const sharedFields = versions.every((v) => deepEqual(v.selectableFields, versions[0].selectableFields));
  versions.forEach((v, i) => {
    if (sharedFields && i > 0) return;
    causes.push(
      ...selectableFieldCauses(v, sharedFields ? "spec.selectableFields" : `spec.versions[${i}].selectableFields`),
    );
  });
  const storage = versions.filter((v) => v.storage === true);
  if (storage.length !== 1) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${goVersions(versions)}: must have exactly one version marked as storage version`,
      field: "spec.versions",
    });
  }
  if (storage.length > 1) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${JSON.stringify([storage[0].name])}: must have the storage version ${
        storage.at(-1)!.name
      }`,
      field: "status.storedVersions",
    });
  }
  return causes;
}

/** The status the naming and establishing controllers settle on; transition times kept from `old`. */
export function acceptedStatus(crd: KubeObject, old: KubeObject | undefined, nowMs: number): Record<string, unknown> {
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
    // Conditions of other types (Terminating, ...) are kept after these two, as kube keeps the stored status.
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
      ...(conditions ?? []).filter((c) => c.type !== "NamesAccepted" && c.type !== "Established"),
    ],
    storedVersions: [...stored],
  };
}

/** The strategy of apiextensions.k8s.io/v1 customresourcedefinitions. */
export const CRDS: ResourceStrategy = {
  default(crd: KubeObject): void {
    const spec = crd.spec;
    if (!spec || typeof spec !== "object") return;
    const names = spec.names;
    if (names?.kind) {
      names.singular ??= String(names.kind).toLowerCase();
      names.listKind ??= `${names.kind}List`;
    }
    spec.conversion ??= { strategy: "None" };
  },
  validate: validateCrd,
  validateUpdate: (next, _old, ctx) => validateCrd(next, ctx),
  // kube's CRD REST Delete: the first delete marks the CRD for the CRD finalizer controller (crd_finalizer.ts).
  terminate(crd: KubeObject, nowMs: number): void {
    const finalizers: string[] = crd.metadata.finalizers ?? [];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) crd.metadata.finalizers = [...finalizers, CRD_CLEANUP_FINALIZER];
    setCrdCondition(crd, {
      type: "Terminating",
      status: "True",
      reason: "InstanceDeletionPending",
      message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    }, rfc3339(nowMs));
  },
  removeWhenFinalized: true,
  canonicalize(crd: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): void {
    if (ctx.subresource === "status") return;
    if (old) {
      crd.status = acceptedStatus(crd, old, ctx.clock.now());
      return;
    }
    // kube answers a create before its naming and establishing controllers ran; CrdController writes the accepted
    // status right after the commit.
    const storage = crd.spec.versions.find((v: KubeObject) => v.storage) ?? crd.spec.versions[0];
    crd.status = { conditions: null, acceptedNames: { plural: "", kind: "" }, storedVersions: [storage.name] };
  },
};
