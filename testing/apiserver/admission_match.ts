/**
 * Which admission webhooks and policies a request reaches, as k8s.io/apiserver's admission/plugin/webhook/predicates
 * decide it: rules (operations, apiGroups, apiVersions, resources with `*` and `res/sub` forms, scope),
 * namespaceSelector (the namespace's labels; a Namespace's own labels when it is the object written), objectSelector
 * (the object's or the old object's labels), and matchPolicy — `Exact` matches only the request's group-version,
 * `Equivalent` (the default) also another served version of the same custom resource, which the webhook then gets the
 * object in. Writes to the admission configuration kinds themselves are never sent to webhooks or policies.
 * @module
 */
import type { AdmissionOperation, AdmissionUserInfo } from "../../runtime/webhook/review_types.ts";
import { type LabelSelector, labelSelectorMatcher } from "../../runtime/apimachinery/label_selector.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { FakeStore } from "./commit_path.ts";
import type { ResourceDef } from "./resource_def.ts";

/** One admission request as the webhook and policy plugins see it (kube: admission.Attributes). */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  /** The resource the request addressed (its served version). */
  def: ResourceDef;
  /** `status`, `scale`, ... or "" for the resource itself. */
  subresource: string;
  /** "" for cluster-scoped resources. */
  namespace: string;
  name: string;
  /** The object in the request's version (null on DELETE). */
  object: KubeObject | null;
  /** The stored object in the request's version (UPDATE, DELETE). */
  oldObject: KubeObject | null;
  dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions (meta.k8s.io/v1) of the request. */
  options: Record<string, unknown>;
  userInfo: AdmissionUserInfo;
}

/** A RuleWithOperations (admissionregistration/v1), or a policy's NamedRuleWithOperations. */
export interface AdmissionRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
  resourceNames?: string[];
}

/** What a webhook or policy binding matches on. */
export interface MatchCriteria {
  rules?: AdmissionRule[];
  excludeRules?: AdmissionRule[];
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  matchPolicy?: string;
}

/** The resource a webhook is called for: the request's own, or an equivalent version of it. */
export interface MatchedResource {
  def: ResourceDef;
  /** Whether `def` is another version than the request's (the object is converted). */
  converted: boolean;
}

const EXEMPT = new Set([
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/** Whether kube keeps this request away from webhooks and policies (writes of their own configuration kinds). */
export function isExemptFromAdmission(def: Pick<ResourceDef, "group" | "plural">): boolean {
  return def.group === "admissionregistration.k8s.io" && EXEMPT.has(def.plural);
}

function anyOf(list: string[] | undefined, value: string): boolean {
  return (list ?? []).some((v) => v === "*" || v === value);
}

/** Whether `rule` covers the request as addressed through `def` (kube: rules.Matcher). */
export function ruleMatches(rule: AdmissionRule, attrs: AdmissionAttributes, def: ResourceDef): boolean {
  if (!anyOf(rule.operations, attrs.operation)) return false;
  if (!anyOf(rule.apiGroups, def.group) || !anyOf(rule.apiVersions, def.version)) return false;
  const resourceMatch = (rule.resources ?? []).some((r) => {
    const slash = r.indexOf("/");
    const [res, sub] = slash < 0 ? [r, ""] : [r.slice(0, slash), r.slice(slash + 1)];
    return (res === "*" || res === def.plural) && (sub === "*" || sub === attrs.subresource);
  });
  if (!resourceMatch) return false;
  if (rule.resourceNames?.length && !rule.resourceNames.includes(attrs.name)) return false;
  const isNamespace = def.group === "" && def.plural === "namespaces";
  switch (rule.scope ?? "*") {
    case "Namespaced":
      return !isNamespace && attrs.namespace !== "";
    case "Cluster":
      return isNamespace || attrs.namespace === "";
    default:
      return true;
  }
}

/**
 * The resource `criteria` match the request through: the request's own when a rule names it, else (matchPolicy
 * Equivalent) another served version of the same custom resource a rule names; undefined when nothing matches or an
 * exclude rule does.
 */
export function matchResource(
  store: FakeStore,
  criteria: MatchCriteria,
  attrs: AdmissionAttributes,
): MatchedResource | undefined {
  const rules = criteria.rules ?? [];
  if ((criteria.excludeRules ?? []).some((r) => ruleMatches(r, attrs, attrs.def))) return undefined;
  if (rules.some((r) => ruleMatches(r, attrs, attrs.def))) return { def: attrs.def, converted: false };
  if (criteria.matchPolicy === "Exact" || !attrs.def.custom) return undefined;
  for (const other of equivalentDefs(store, attrs.def)) {
    if (rules.some((r) => ruleMatches(r, attrs, other))) return { def: other, converted: true };
  }
  return undefined;
}

/** The other served versions of a custom resource (kube: the equivalent resource registry), in the CRD's order. */
function equivalentDefs(store: FakeStore, def: ResourceDef): ResourceDef[] {
  const crd = store.objects.get("apiextensions.k8s.io/customresourcedefinitions", "", `${def.plural}.${def.group}`);
  const versions: string[] = (crd?.spec?.versions ?? []).map((v: KubeObject) => String(v.name));
  return versions.filter((v) => v !== def.version)
    .map((v) => store.registry.lookup(def.group, v, def.plural))
    .filter((d): d is ResourceDef => d !== undefined);
}

/**
 * Whether the namespace selector admits the request: cluster-scoped requests (but Namespaces) always match; a
 * Namespace being created or updated is judged by its own labels, others by their namespace's (kube:
 * namespace.Matcher).
 */
export function namespaceSelectorMatches(
  store: FakeStore,
  selector: LabelSelector | undefined,
  attrs: AdmissionAttributes,
): boolean {
  const isNamespace = attrs.def.group === "" && attrs.def.plural === "namespaces";
  if (attrs.namespace === "" && !isNamespace) return true;
  if (!selector || (!selector.matchLabels && !selector.matchExpressions?.length)) return true;
  let labels: Record<string, string> | undefined;
  if (isNamespace && attrs.subresource === "" && (attrs.operation === "CREATE" || attrs.operation === "UPDATE")) {
    labels = attrs.object?.metadata?.labels;
  } else {
    const name = isNamespace ? attrs.name : attrs.namespace;
    labels = store.objects.get("/namespaces", "", name)?.metadata.labels;
  }
  return labelSelectorMatcher(selector)(labels ?? {});
}

/** Whether the object selector matches the object or the old object (kube: object.Matcher); empty matches all. */
export function objectSelectorMatches(selector: LabelSelector | undefined, attrs: AdmissionAttributes): boolean {
  if (!selector || (!selector.matchLabels && !selector.matchExpressions?.length)) return true;
  const matches = labelSelectorMatcher(selector);
  return [attrs.object, attrs.oldObject].some((o) => o != null && matches(o.metadata?.labels ?? {}));
}

/** The namespace object of a namespaced request, for policies' `namespaceObject` (undefined otherwise). */
export function namespaceObjectOf(store: FakeStore, attrs: AdmissionAttributes): KubeObject | undefined {
  if (attrs.namespace === "") return undefined;
  const ns = store.objects.get("/namespaces", "", attrs.namespace);
  return ns ? { apiVersion: "v1", kind: "Namespace", ...ns } : undefined;
}
