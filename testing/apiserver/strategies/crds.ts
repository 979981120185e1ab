/**
 * CustomResourceDefinitions: validated as apiextensions' ValidateCustomResourceDefinition(Update) does, in its order
 * and words (the `<plural>.<group>` name and generateName, group, scope, versions, names, stored versions; on updates
 * the immutable group, plural, and once Established scope and kind), and — because the fake serves a CRD's kinds at
 * once (testing/apiserver/crd.ts) — the status kube-apiserver's naming and establishing controllers would write follows
 * every update of the main resource: acceptedNames, NamesAccepted and Established and storedVersions. A create answers
 * with `conditions: null`, as kube does; CrdController establishes the CRD right after. Schemas are checked as apiextensions validation does (testing/apiserver/cel/crd_rules.ts: structural rules, CEL
 * rules and their estimated cost); singular, listKind and conversion are defaulted.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { deepEqual } from "../../../runtime/apimachinery/equality.ts";
import { schemaAtPath, validateCrdSchema } from "../cel/crd_rules.ts";
import { rfc3339, validateSubdomainName } from "../object_rules.ts";
import { dns1035LabelErrors, dns1123SubdomainErrors } from "../../../runtime/apimachinery/names.ts";
import { fieldImmutable, fieldInvalid, fieldNotSupported, fieldRequired } from "../validation/field_errors.ts";
import { CRD_CLEANUP_FINALIZER, setCrdCondition } from "../crd_conditions.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";

/**
 * kube's ValidateCustomResourceDefinition(Update) in its order (apiextensions validation.go): the spec (group, scope,
 * schemas, each version, storage version, names), then the stored versions. The name is the strategy's validateName.
 */
function validateCrd(crd: KubeObject, ctx: StrategyContext): StatusCause[] {
  if (ctx.subresource === "status") return [];
  const spec: KubeObject = crd.spec && typeof crd.spec === "object" ? crd.spec : {};
  const names: KubeObject = spec.names && typeof spec.names === "object" ? spec.names : {};
  const versions: KubeObject[] = Array.isArray(spec.versions) ? spec.versions : [];
  const causes: StatusCause[] = [];
  const group = String(spec.group ?? "");
  if (!group) causes.push(fieldRequired("spec.group"));
  else if (dns1123SubdomainErrors(group).length > 0) {
    causes.push(fieldInvalid("spec.group", group, dns1123SubdomainErrors(group).join(",")));
  } else if (!group.includes(".")) {
    causes.push(fieldInvalid("spec.group", group, "should be a domain with at least one dot"));
  }
  if (!spec.scope) causes.push(fieldRequired("spec.scope"));
  else if (spec.scope !== "Cluster" && spec.scope !== "Namespaced") {
    causes.push(fieldNotSupported("spec.scope", spec.scope, ["Cluster", "Namespaced"]));
  }
  causes.push(...versionCauses(spec.versions, versions));
  if (versions.length > 0) {
    // The internal spec.version is versions[0]'s name, checked again.
    const first = String(versions[0].name ?? "");
    const errs = dns1035LabelErrors(first);
    if (errs.length > 0) causes.push(fieldInvalid("spec.version", first, errs.join(",")));
  }
  for (const key of ["plural", "singular", "kind", "listKind"]) {
    if (!names[key]) causes.push(fieldRequired(`spec.names.${key}`));
  }
  causes.push(...nameCauses(names, "spec.names"));
  causes.push(...sharedCauses(versions));
  if (ctx.verb === "create") causes.push(...storedVersionCauses(versions));
  return causes;
}

/**
 * What only an update checks, after the spec (validateCustomResourceDefinitionSpecUpdate and the stored versions): an
 * Established CRD's scope and kind, any CRD's group and plural are immutable; a stored version may not leave
 * spec.versions.
 */
function updateCauses(next: KubeObject, old: KubeObject, ctx: StrategyContext): StatusCause[] {
  if (ctx.subresource === "status") return [];
  const [spec, was] = [next.spec ?? {}, old.spec ?? {}];
  const causes: StatusCause[] = [];
  const immutable = (field: string, now: unknown, before: unknown) => {
    if (!deepEqual(now, before)) causes.push(fieldImmutable(field, now));
  };
  const established = (old.status?.conditions ?? []).some((c: KubeObject) =>
    c.type === "Established" && c.status === "True"
  );
  if (established) {
    immutable("spec.scope", spec.scope, was.scope);
    immutable("spec.names.kind", spec.names?.kind, was.names?.kind);
  }
  immutable("spec.group", spec.group, was.group);
  immutable("spec.names.plural", spec.names?.plural, was.names?.plural);
  const served = new Set((Array.isArray(spec.versions) ? spec.versions : []).map((v: KubeObject) => v.name));
  (old.status?.storedVersions ?? []).forEach((v: string, i: number) => {
    if (served.has(v)) return;
    const detail = `missing from spec.versions; ${v} was previously a storage version, and must remain in ` +
      `spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from ` +
      "status.storedVersions";
    causes.push(fieldInvalid(`status.storedVersions[${i}]`, v, detail));
  });
  return causes;
}

/** The `<plural>.<group>` rule of a CRD's name (kube's nameValidationFn), after the DNS subdomain check. */
function validateCrdName(name: string, crd?: KubeObject): StatusCause[] {
  const spec = crd?.spec && typeof crd.spec === "object" ? crd.spec : {};
  const required = `${spec.names?.plural ?? ""}.${spec.group ?? ""}`;
  const causes = validateSubdomainName(name);
  if (name !== required) causes.push(fieldInvalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'));
  return causes;
}

/** ValidateCustomResourceDefinitionNames: DNS-1035 labels (kinds in any case), kind and listKind apart. */
function nameCauses(names: KubeObject, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const label = (key: string, value: unknown, lower = false) => {
    const text = String(value ?? "");
    if (!text) return;
    const errs = dns1035LabelErrors(lower ? text.toLowerCase() : text);
    if (errs.length === 0) return;
    const detail = lower ? `may have mixed case, but should otherwise match: ${errs.join(",")}` : errs.join(",");
    causes.push(fieldInvalid(`${at}.${key}`, text, detail));
  };
  label("plural", names.plural);
  label("singular", names.singular);
  label("kind", names.kind, true);
  label("listKind", names.listKind, true);
  (Array.isArray(names.shortNames) ? names.shortNames : []).forEach((n: unknown, i: number) =>
    label(`shortNames[${i}]`, n)
  );
  if (names.kind && names.kind === names.listKind) {
    causes.push(fieldInvalid(`${at}.listKind`, names.listKind, "kind and listKind may not be the same"));
  }
  (Array.isArray(names.categories) ? names.categories : []).forEach((n: unknown, i: number) =>
    label(`categories[${i}]`, n)
  );
  return causes;
}

/**
 * The stored versions a create sets (the first storage version) checked against the versions: none is `must have at
 * least one stored version`, each further storage version `must have the storage version <name>`.
 */
function storedVersionCauses(versions: KubeObject[]): StatusCause[] {
  const storage = versions.filter((v) => v.storage === true).map((v) => String(v.name));
  if (storage.length === 0) {
    return [fieldInvalid("status.storedVersions", null, "must have at least one stored version")];
  }
  return storage.slice(1).map((name) =>
    fieldInvalid("status.storedVersions", [storage[0]], `must have the storage version ${name}`)
  );
}

/** Go's json.Marshal of the internal CustomResourceDefinitionVersion list (schemas hoisted to spec.validation). */
function goVersions(raw: unknown): string {
  if (!Array.isArray(raw)) return "null";
  const versions = raw as KubeObject[];
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

/**
 * The versions, as validateCustomResourceDefinitionSpec checks them before the names: each version without a schema
 * (unless one shared schema is hoisted to spec.validation), each version's name, own schema and own selectableFields,
 * unique names, exactly one storage version (`raw` is the sent list: absent is Go's nil, printed null).
 */
function versionCauses(raw: unknown, versions: KubeObject[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const schemas = versions.map((v) => v.schema?.openAPIV3Schema);
  const shared = schemas.every((s) => deepEqual(s, schemas[0]));
  if (!shared || schemas[0] === undefined) {
    schemas.forEach((schema, i) => {
      if (!schema) causes.push(fieldRequired(`spec.versions[${i}].schema.openAPIV3Schema`, "schemas are required"));
    });
  }
  const sharedFields = versions.every((v) => deepEqual(v.selectableFields, versions[0].selectableFields));
  const names = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const name = String(v.name ?? "");
    if (names.has(name)) unique = false;
    names.add(name);
    const errs = dns1035LabelErrors(name);
    if (errs.length > 0) causes.push(fieldInvalid(`spec.versions[${i}].name`, name, errs.join(",")));
    if (!shared && schemas[i]) {
      causes.push(...validateCrdSchema(schemas[i], `spec.versions[${i}].schema.openAPIV3Schema`));
    }
    if (!sharedFields) causes.push(...selectableFieldCauses(v, `spec.versions[${i}].selectableFields`));
  });
  if (!unique) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${goVersions(raw)}: must contain unique version names`,
      field: "spec.versions",
    });
  }
  if (versions.filter((v) => v.storage === true).length !== 1) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${goVersions(raw)}: must have exactly one version marked as storage version`,
      field: "spec.versions",
    });
  }
  return causes;
}

/** What one schema and one selectableFields list shared by every version are checked as (spec.validation, ...). */
function sharedCauses(versions: KubeObject[]): StatusCause[] {
  if (versions.length === 0) return [];
  const causes: StatusCause[] = [];
  const schemas = versions.map((v) => v.schema?.openAPIV3Schema);
  if (schemas[0] && schemas.every((s) => deepEqual(s, schemas[0]))) {
    causes.push(...validateCrdSchema(schemas[0], "spec.validation.openAPIV3Schema"));
  }
  if (versions.every((v) => deepEqual(v.selectableFields, versions[0].selectableFields))) {
    causes.push(...selectableFieldCauses(versions[0], "spec.selectableFields"));
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
  // The CRD REST's Delete checks the preconditions before the store does.
  deletePreconditionsFailed: "precondition failed",
  default(crd: KubeObject): void {
    const spec = crd.spec;
    if (!spec || typeof spec !== "object") return;
    const names = spec.names;
    if (names?.kind) {
      names.singular ||= String(names.kind).toLowerCase();
      names.listKind ||= `${names.kind}List`;
    }
    spec.conversion ??= { strategy: "None" };
  },
  validateName: validateCrdName,
  validate: validateCrd,
  validateUpdate: (next, old, ctx) => [...validateCrd(next, ctx), ...updateCauses(next, old, ctx)],
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
