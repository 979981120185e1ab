/**
 * The ValidatingAdmissionPolicy plugin (admissionregistration.k8s.io/v1, GA since v1.30), evaluated with
 * testing/apiserver/cel/: a policy applies through each binding naming it; the policy's matchConstraints and the binding's
 * matchResources (rules, excludeResourceRules, namespace and object selectors, matchPolicy), matchConditions,
 * `variables`, then each validation's `expression` — false is a violation worded by `message`, `messageExpression`
 * or `failed expression: <expr>`, acted on per the binding's validationActions: Deny refuses with kube's
 * `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request: <msg>` (422
 * Invalid unless the validation names another reason), Warn adds a `Warning` header, Audit does nothing here (no
 * audit log). paramKind with paramRef (name, or selector; namespace, parameterNotFoundAction) binds `params`.
 * An evaluation error follows failurePolicy (Fail by default). Not done: `authorizer` (validations using it, and
 * optional-types syntax, are skipped with a `Warning`), auditAnnotations, type checking and the policy's status.
 * @module
 */
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import { labelSelectorMatcher } from "../../runtime/apimachinery/label_selector.ts";
import {
  type AdmissionAttributes,
  type MatchCriteria,
  matchResource,
  namespaceObjectOf,
  namespaceSelectorMatches,
  objectSelectorMatches,
} from "./admission_match.ts";
import { admissionVariables, evaluate, evaluateMatchConditions } from "./admission_policy_cel.ts";
import type { FakeStore } from "./commit_path.ts";
import { storageKeyOf } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { byName } from "../../runtime/apimachinery/string_order.ts";

const POLICIES = "admissionregistration.k8s.io/validatingadmissionpolicies";
const BINDINGS = "admissionregistration.k8s.io/validatingadmissionpolicybindings";

/** Whether any policy binding is stored (else the request path skips policies). */
export function hasPolicies(store: FakeStore): boolean {
  return store.objects.list(BINDINGS).length > 0;
}

interface MatchResourcesSpec {
  resourceRules?: MatchCriteria["rules"];
  excludeResourceRules?: MatchCriteria["excludeRules"];
  namespaceSelector?: MatchCriteria["namespaceSelector"];
  objectSelector?: MatchCriteria["objectSelector"];
  matchPolicy?: string;
}

/** Whether match resources select the request; the resource the policy sees it as. */
function matched(
  store: FakeStore,
  spec: MatchResourcesSpec | undefined,
  attrs: AdmissionAttributes,
): ResourceDef | undefined {
  if (!spec) return attrs.def;
  const hit = matchResource(
    store,
    { rules: spec.resourceRules, excludeRules: spec.excludeResourceRules, matchPolicy: spec.matchPolicy },
    attrs,
  );
  if (!hit) return undefined;
  if (!namespaceSelectorMatches(store, spec.namespaceSelector, attrs)) return undefined;
  if (!objectSelectorMatches(spec.objectSelector, attrs)) return undefined;
  return hit.def;
}

/** The param objects a binding names, or "none" when paramKind is unset; [] when none was found. */
function paramsOf(
  store: FakeStore,
  policy: KubeObject,
  binding: KubeObject,
  attrs: AdmissionAttributes,
): KubeObject[] | "none" {
  const kind = policy.spec?.paramKind;
  const ref = binding.spec?.paramRef;
  if (!kind || !ref) return "none";
  const [group, version] = String(kind.apiVersion ?? "").includes("/")
    ? String(kind.apiVersion).split("/")
    : ["", String(kind.apiVersion ?? "")];
  const def = store.registry.all().find((d) => d.group === group && d.version === version && d.kind === kind.kind);
  if (!def) return [];
  const namespace = def.namespaced ? (ref.namespace || attrs.namespace) : "";
  if (ref.name) {
    const obj = store.objects.get(storageKeyOf(def), namespace, ref.name);
    return obj ? [store.present(def, obj)] : [];
  }
  const selects = labelSelectorMatcher(ref.selector ?? {});
  return store.objects.list(storageKeyOf(def), def.namespaced ? namespace : undefined)
    .filter((o) => selects(o.metadata.labels ?? {}))
    .map((o) => store.present(def, o));
}

/** kube's refusal: admission.NewForbidden with the validation's reason (Invalid by default) and code. */
function denied(attrs: AdmissionAttributes, message: string, reason: string | undefined): ApiError {
  const resource = attrs.def.group ? `${attrs.def.plural}.${attrs.def.group}` : attrs.def.plural;
  const name = attrs.name || attrs.object?.metadata?.name || "";
  const text = name
    ? `${resource} ${JSON.stringify(name)} is forbidden: ${message}`
    : `${resource} is forbidden: ${message}`;
  const why = reason || "Invalid";
  const code =
    ({ Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 } as Record<string, number>)[
      why
    ] ?? 422;
  const details: Record<string, unknown> = { name, kind: attrs.def.plural, causes: [{ message }] };
  if (attrs.def.group) details.group = attrs.def.group;
  return new ApiError(failureStatus(code, why, text, details), { verb: "create" });
}

/** A violation (or an evaluation error under failurePolicy Fail) of one policy through one binding. */
interface Violation {
  message: string;
  reason?: string;
}

function violationsOf(policy: KubeObject, vars: Record<string, unknown>, warnings: string[]): Violation[] {
  const failClosed = policy.spec?.failurePolicy !== "Ignore";
  const out: Violation[] = [];
  const composed = new Map<string, unknown>();
  for (const v of policy.spec?.variables ?? []) {
    const r = evaluate(String(v.expression), { ...vars, variables: composed });
    composed.set(String(v.name), "value" in r ? r.value : null);
  }
  const withVariables = { ...vars, variables: composed };
  for (const v of policy.spec?.validations ?? []) {
    const expression = String(v.expression ?? "");
    const r = evaluate(expression, withVariables);
    if ("unsupported" in r) {
      warnings.push(
        `the fake API server did not evaluate expression ${
          JSON.stringify(expression)
        } of ValidatingAdmissionPolicy '${policy.metadata.name}': unsupported CEL: ${r.unsupported}`,
      );
      continue;
    }
    if ("error" in r) {
      if (failClosed) out.push({ message: `expression '${expression}' resulted in error: ${r.error}` });
      continue;
    }
    if (r.value === true) continue;
    let message = v.message ? String(v.message) : `failed expression: ${expression.trim()}`;
    if (v.messageExpression) {
      const m = evaluate(String(v.messageExpression), withVariables);
      if ("value" in m && typeof m.value === "string" && m.value.trim() !== "") message = m.value;
    }
    out.push({ message, reason: v.reason });
  }
  return out;
}

/**
 * Evaluates every bound policy on `attrs`; warnings (Warn) go to `warnings`; the first Deny violation is thrown as
 * the ApiError kube answers.
 */
export function runValidatingPolicies(store: FakeStore, attrs: AdmissionAttributes, warnings: string[]): void {
  const policies = new Map(store.objects.list(POLICIES).map((p) => [p.metadata.name!, p]));
  const bindings = [...store.objects.list(BINDINGS)].sort(byName);
  for (const binding of bindings) {
    const policy = policies.get(binding.spec?.policyName);
    if (!policy) continue;
    const def = matched(store, policy.spec?.matchConstraints, attrs);
    if (!def || !matched(store, binding.spec?.matchResources, attrs)) continue;
    const label = `ValidatingAdmissionPolicy '${policy.metadata.name}' with binding '${binding.metadata.name}'`;
    const actions: string[] = binding.spec?.validationActions ?? [];
    const base = { ...admissionVariables(attrs, def), namespaceObject: namespaceObjectOf(store, attrs) ?? null };
    if (policy.spec?.matchConditions?.length) {
      const m = evaluateMatchConditions(policy.spec.matchConditions, attrs, def, { params: null });
      if (m.error && policy.spec?.failurePolicy !== "Ignore") {
        throw denied(attrs, `${label} denied request: ${m.error}`, undefined);
      }
      if (!m.matches) continue;
    }
    const params = paramsOf(store, policy, binding, attrs);
    if (Array.isArray(params) && params.length === 0) {
      if (binding.spec?.paramRef?.parameterNotFoundAction === "Allow") continue;
      const message =
        "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction";
      if (policy.spec?.failurePolicy === "Ignore") continue;
      throw denied(attrs, `${label} denied request: ${message}`, undefined);
    }
    for (const param of params === "none" ? [null] : params) {
      for (const v of violationsOf(policy, { ...base, params: param }, warnings)) {
        if (actions.includes("Warn")) warnings.push(`Validation failed for ${label}: ${v.message}`);
        if (actions.includes("Deny")) throw denied(attrs, `${label} denied request: ${v.message}`, v.reason);
      }
    }
  }
}
