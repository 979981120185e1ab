/**
 * CEL for admission (testing/apiserver/cel/'s library with admission's variables): `object`, `oldObject`, `request`,
 * `params`, `namespaceObject` and `variables`, as ValidatingAdmissionPolicy validations, their messageExpressions
 * and webhooks' matchConditions see them. `authorizer` is not declared (the fake does not evaluate authorization
 * checks in CEL).
 * @module
 */
import type { AdmissionRequest } from "../../runtime/webhook/review_types.ts";
import { isCelError } from "@bufbuild/cel";
import type { AdmissionAttributes } from "./admission_match.ts";
import { compileExpression, runtimeErrorText } from "./cel/compile.ts";
import { toCel } from "./cel/values.ts";
import type { ResourceDef } from "./resource_def.ts";

/** The variables admission CEL declares. */
export const ADMISSION_VARIABLES = ["object", "oldObject", "request", "params", "namespaceObject", "variables"];

/** A webhook's (or policy's) matchCondition. */
export interface MatchCondition {
  name: string;
  expression: string;
}

/** The `request` variable (and the AdmissionReview request without uid and objects) of `attrs` through `def`. */
export function requestVariable(
  attrs: AdmissionAttributes,
  def: ResourceDef,
): Omit<AdmissionRequest, "uid" | "object" | "oldObject"> {
  const gvk = (d: ResourceDef) => ({ group: d.group, version: d.version, kind: d.kind });
  const gvr = (d: ResourceDef) => ({ group: d.group, version: d.version, resource: d.plural });
  return {
    kind: gvk(def),
    resource: gvr(def),
    ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
    requestKind: gvk(attrs.def),
    requestResource: gvr(attrs.def),
    ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
    operation: attrs.operation,
    userInfo: attrs.userInfo,
    dryRun: attrs.dryRun,
    options: attrs.options,
  };
}

/** What one evaluation gave: a value, cel-go's error text, or why the fake cannot evaluate what kube would. */
export type CelOutcome = { value: unknown } | { error: string } | { unsupported: string };

/** Compiles (cached) and evaluates `expression` with admission's variables bound from `vars` (JSON values). */
export function evaluate(expression: string, vars: Record<string, unknown>): CelOutcome {
  const compiled = compileExpression(expression, ADMISSION_VARIABLES);
  if (compiled.error?.includes("undeclared reference to 'authorizer'")) {
    return { unsupported: "the authorizer variable" };
  }
  if (compiled.error) return { error: `compilation failed: ${compiled.error}` };
  if (!compiled.run) return { unsupported: compiled.unsupported ?? "not evaluable" };
  const bound: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(vars)) bound[k] = k === "variables" ? v : toCel(v, undefined);
  const result = compiled.run(bound);
  if (isCelError(result)) return { error: runtimeErrorText(result) ?? "evaluation error" };
  return { value: result };
}

/** The JSON variables of `attrs` through `def` (`params` and `namespaceObject` added by the caller). */
export function admissionVariables(attrs: AdmissionAttributes, def: ResourceDef): Record<string, unknown> {
  return {
    object: attrs.object,
    oldObject: attrs.oldObject,
    request: requestVariable(attrs, def),
  };
}

/**
 * Evaluates matchConditions: all true → matches; any false → not (even if another errs); otherwise the first error
 * (kube: matchconditions.Matcher).
 */
export function evaluateMatchConditions(
  conditions: MatchCondition[],
  attrs: AdmissionAttributes,
  def: ResourceDef,
  extra: Record<string, unknown> = {},
): { matches: boolean; error?: string } {
  const vars = { ...admissionVariables(attrs, def), ...extra };
  let error: string | undefined;
  for (const c of conditions) {
    const out = evaluate(c.expression, vars);
    if (!("value" in out)) {
      const why = "error" in out ? out.error : `unsupported CEL: ${out.unsupported}`;
      error ??= `failed to evaluate match condition ${JSON.stringify(c.name)}: ${why}`;
      continue;
    }
    if (out.value === false) return { matches: false };
    if (out.value !== true) error ??= `matchCondition ${JSON.stringify(c.name)} did not evaluate to a bool`;
  }
  return error ? { matches: false, error } : { matches: true };
}
