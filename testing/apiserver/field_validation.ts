/**
 * The `fieldValidation` query parameter as kube-apiserver's strict decoder applies it: duplicate JSON keys, then
 * unknown fields (custom resources: the fields pruning dropped; built-ins: what their Go struct does not declare,
 * go_json_unknown.ts) are refused with 400
 * (`<Kind> in version "v1" cannot be handled as a <Kind>: strict decoding error: duplicate field "spec.a", unknown
 * field "spec.b"`) under `Strict`, sent as `Warning` headers under `Warn`, and ignored under `Ignore`.
 * @module
 */
import { badRequest } from "./status_errors.ts";
import type { StrategyContext } from "./strategy.ts";

/**
 * Applies `ctx.fieldValidation` to the body's duplicate keys (`ctx.duplicateFields`) and `unknown` field paths; a JSON
 * body's errors already put in document order (`ctx.strictErrors`: a built-in's duplicates and unknown fields, as the
 * decoder meets them) replace the duplicates.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BUILTIN_RESOURCES } from "./builtin_resources.ts";
 * import { applyFieldValidation } from "./field_validation.ts";
 * const def = BUILTIN_RESOURCES.find((d) => d.plural === "configmaps")!;
 * const warnings: string[] = [];
 * applyFieldValidation({ def, verb: "create", fieldValidation: "Warn", warnings }, ["spec.bogus"]);
 * assert.deepEqual(warnings, ['unknown field "spec.bogus"']); // sent back as Warning headers
 * assert.throws(
 *   () => applyFieldValidation({ def, verb: "create", fieldValidation: "Strict", warnings: [] }, ["spec.bogus"]),
 *   /ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec.bogus"/,
 * ); // a 400
 * ```
 */
export function applyFieldValidation(
  ctx: Pick<StrategyContext, "def" | "verb" | "fieldValidation" | "duplicateFields" | "warnings" | "strictErrors">,
  unknown: string[],
): void {
  const messages = [
    ...(ctx.strictErrors ?? (ctx.duplicateFields ?? []).map((p) => `duplicate field ${JSON.stringify(p)}`)),
    ...unknown.map((p) => `unknown field ${JSON.stringify(p)}`),
  ];
  if (messages.length === 0) return;
  if (ctx.fieldValidation === "Strict") {
    const { kind, version } = ctx.def;
    const prefix = `${kind} in version "${version}" cannot be handled as a ${kind}: `;
    throw badRequest(`${prefix}strict decoding error: ${messages.join(", ")}`, ctx.verb);
  }
  if (ctx.fieldValidation === "Warn") ctx.warnings.push(...messages);
}
