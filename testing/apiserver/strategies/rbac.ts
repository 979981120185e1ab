/**
 * rbac.authorization.k8s.io: Role, RoleBinding, ClusterRole and ClusterRoleBinding names are path segments
 * (`system:controller:foo` is valid), not DNS subdomains. Validated as kube-apiserver v1.37 does
 * (pkg/apis/rbac/validation; the checks v1.37 moved to declarative validation come last, as there): rules need verbs,
 * and api groups and resources unless they name non-resource URLs (which namespaced Roles may not), and a role without
 * any has `rules: null`; a binding's roleRef names a Role or ClusterRole of this group (its apiGroup defaults to it)
 * and never changes; subjects are ServiceAccounts (ClusterRoleBindings: with a namespace), Users or Groups, whose
 * apiGroup defaults to this group.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { dns1123SubdomainErrors } from "../../../runtime/apimachinery/names.ts";
import { jsonEqual, validatePathSegmentName } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";
import { fieldInvalid, fieldNotSupported, fieldRequired } from "../validation/field_errors.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const GROUP = "rbac.authorization.k8s.io";

function validateRules(role: KubeObject, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const declarative: StatusCause[] = [];
  const rules: Json[] = Array.isArray(role.rules) ? role.rules : [];
  rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (!rule?.verbs?.length) declarative.push(fieldRequired(`${at}.verbs`));
    const urls = rule?.nonResourceURLs ?? [];
    if (urls.length > 0) {
      if (namespaced) {
        causes.push(fieldInvalid(`${at}.nonResourceURLs`, urls, "namespaced rules cannot apply to non-resource URLs"));
      }
      if (rule.apiGroups?.length || rule.resources?.length || rule.resourceNames?.length) {
        causes.push(
          fieldInvalid(
            `${at}.nonResourceURLs`,
            urls,
            "rules cannot apply to both regular resources and non-resource URLs",
          ),
        );
      }
      return;
    }
    if (!rule?.apiGroups?.length) {
      causes.push(fieldRequired(`${at}.apiGroups`, "resource rules must supply at least one api group"));
    }
    if (!rule?.resources?.length) {
      causes.push(fieldRequired(`${at}.resources`, "resource rules must supply at least one resource"));
    }
  });
  return [...causes, ...declarative];
}

function validateBinding(binding: KubeObject, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const declarative: StatusCause[] = [];
  const ref = binding.roleRef ?? {};
  if (ref.apiGroup !== GROUP) causes.push(fieldNotSupported("roleRef.apiGroup", ref.apiGroup ?? "", [GROUP]));
  if (ref.kind !== "Role" && ref.kind !== "ClusterRole") {
    causes.push(fieldNotSupported("roleRef.kind", ref.kind ?? "", ["Role", "ClusterRole"]));
  }
  if (!ref.name) declarative.push(fieldRequired("roleRef.name"));
  else {
    for (const c of validatePathSegmentName(ref.name)) causes.push({ ...c, field: "roleRef.name" });
  }
  const subjectNames: StatusCause[] = [];
  (Array.isArray(binding.subjects) ? binding.subjects : []).forEach((s: Json, i: number) => {
    const at = `subjects[${i}]`;
    if (!s?.name) subjectNames.push(fieldRequired(`${at}.name`));
    switch (s?.kind) {
      case "ServiceAccount":
        if (s.name) {
          for (const msg of dns1123SubdomainErrors(s.name)) causes.push(fieldInvalid(`${at}.name`, s.name, msg));
        }
        if (s.apiGroup) causes.push(fieldNotSupported(`${at}.apiGroup`, s.apiGroup, [""]));
        if (!namespaced && !s.namespace) causes.push(fieldRequired(`${at}.namespace`));
        break;
      case "User":
      case "Group":
        if (s.apiGroup !== GROUP) causes.push(fieldNotSupported(`${at}.apiGroup`, s.apiGroup ?? "", [GROUP]));
        break;
      default:
        causes.push(fieldNotSupported(`${at}.kind`, s?.kind ?? "", ["ServiceAccount", "User", "Group"]));
    }
  });
  // Declarative validation reports its errors after the handwritten ones, in struct order (subjects, roleRef).
  return [...causes, ...subjectNames, ...declarative];
}

/** The internal RoleRef as kube prints it in the immutability error (Go field names). */
function roleRefValue(ref: Json): string {
  return JSON.stringify({ APIGroup: ref?.apiGroup ?? "", Kind: ref?.kind ?? "", Name: ref?.name ?? "" });
}

/** SetDefaults_(Cluster)RoleBinding and SetDefaults_Subject: the roleRef's and users' and groups' apiGroup. */
function defaultBinding(binding: KubeObject): void {
  const ref = binding.roleRef;
  if (ref === undefined || ref === null || (typeof ref === "object" && !Array.isArray(ref) && !ref.apiGroup)) {
    binding.roleRef = { ...ref, apiGroup: GROUP };
  }
  for (const s of Array.isArray(binding.subjects) ? binding.subjects : []) {
    if (s && typeof s === "object" && (s.kind === "User" || s.kind === "Group")) s.apiGroup ??= GROUP;
  }
}

function role(namespaced: boolean): ResourceStrategy {
  const validate = (obj: KubeObject) => validateRules(obj, namespaced);
  // `rules` has no omitempty and is stored in protobuf: none (or an empty list) is answered as null.
  const encode = (obj: KubeObject) => {
    if (!Array.isArray(obj.rules) || obj.rules.length === 0) obj.rules = null;
  };
  return {
    validateName: validatePathSegmentName,
    allowCreateOnUpdate: true,
    validate,
    validateUpdate: validate,
    encode,
  };
}

function binding(namespaced: boolean): ResourceStrategy {
  return {
    validateName: validatePathSegmentName,
    allowCreateOnUpdate: true,
    default: defaultBinding,
    validate: (obj: KubeObject) => validateBinding(obj, namespaced),
    validateUpdate(next: KubeObject, old: KubeObject, _ctx: StrategyContext): StatusCause[] {
      const causes = validateBinding(next, namespaced);
      if (!jsonEqual(next.roleRef, old.roleRef)) {
        causes.push({
          ...fieldInvalid("roleRef", "", "field is immutable"),
          message: `Invalid value: ${roleRefValue(next.roleRef)}: field is immutable`,
        });
      }
      return causes;
    },
  };
}

/** rbac.authorization.k8s.io/v1 roles. */
export const ROLES: ResourceStrategy = role(true);
/** rbac.authorization.k8s.io/v1 clusterroles (an aggregated ClusterRole's rules are the controller's). */
export const CLUSTER_ROLES: ResourceStrategy = role(false);
/** rbac.authorization.k8s.io/v1 rolebindings. */
export const ROLE_BINDINGS: ResourceStrategy = binding(true);
/** rbac.authorization.k8s.io/v1 clusterrolebindings. */
export const CLUSTER_ROLE_BINDINGS: ResourceStrategy = binding(false);
