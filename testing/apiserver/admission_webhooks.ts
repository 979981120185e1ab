/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins of kube-apiserver (k8s.io/apiserver
 * admission/plugin/webhook): the stored Mutating/ValidatingWebhookConfigurations (sorted by name, webhooks in their
 * order) are matched against a request ({@link matchResource}, selectors, CEL matchConditions), sent an
 * AdmissionReview v1, and their answers applied — JSON patches (mutating only; reinvocationPolicy IfNeeded calls a
 * webhook once more when a later one changed the object), warnings, denials with kube's wording
 * (`admission webhook "x" denied the request: ...`), failurePolicy for calls that fail (`failed calling webhook ...`,
 * 500 InternalError under Fail), and dry runs refused for webhooks whose sideEffects are not None/NoneOnDryRun.
 * @module
 */
import type { AdmissionResponse, AdmissionReview } from "../../runtime/webhook/review_types.ts";
import { ApiError, failureStatus, type Status } from "../../runtime/client/errors.ts";
import type { LabelSelector } from "../../runtime/apimachinery/label_selector.ts";
import {
  type AdmissionAttributes,
  type AdmissionRule,
  matchResource,
  namespaceSelectorMatches,
  objectSelectorMatches,
} from "./admission_match.ts";
import { evaluateMatchConditions, type MatchCondition, requestVariable } from "./admission_policy_cel.ts";
import { postReview, WebhookCallError, type WebhookClientConfig } from "./admission_webhook_client.ts";
import type { FakeStore } from "./commit_path.ts";
import { jsonEqual } from "./object_rules.ts";
import { applyJsonPatch } from "./patch/json_patch.ts";
import type { ResourceDef } from "./resource_def.ts";
import { apiVersionOf } from "../../runtime/types.ts";
import { conversionWebhookOf, convertObjects } from "./crd_conversion_webhook.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { byName } from "../../runtime/apimachinery/string_order.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** One webhook of a configuration (admissionregistration/v1 MutatingWebhook / ValidatingWebhook). */
export interface WebhookSpec {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: AdmissionRule[];
  failurePolicy?: "Fail" | "Ignore";
  matchPolicy?: "Exact" | "Equivalent";
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  reinvocationPolicy?: "Never" | "IfNeeded";
  matchConditions?: MatchCondition[];
}

const MUTATING = "admissionregistration.k8s.io/mutatingwebhookconfigurations";
const VALIDATING = "admissionregistration.k8s.io/validatingwebhookconfigurations";

/** Whether any webhook configuration is stored (else the request path skips the webhook machinery). */
export function hasWebhooks(store: FakeStore): boolean {
  return store.objects.list(MUTATING).length > 0 || store.objects.list(VALIDATING).length > 0;
}

/** The webhooks of every configuration of `key`, configurations sorted by name (kube's dispatch order). */
function webhooksOf(store: FakeStore, key: string): WebhookSpec[] {
  const configs = [...store.objects.list(key)].sort(byName);
  return configs.flatMap((c) => (c.webhooks ?? []) as WebhookSpec[]);
}

/** The webhook's resource for this request, or undefined when it does not apply. */
function invocationOf(store: FakeStore, hook: WebhookSpec, attrs: AdmissionAttributes): ResourceDef | undefined {
  const matched = matchResource(store, { rules: hook.rules, matchPolicy: hook.matchPolicy }, attrs);
  if (!matched) return undefined;
  if (!namespaceSelectorMatches(store, hook.namespaceSelector, attrs)) return undefined;
  if (!objectSelectorMatches(hook.objectSelector, attrs)) return undefined;
  if (hook.matchConditions?.length) {
    const outcome = evaluateMatchConditions(hook.matchConditions, attrs, matched.def);
    if (outcome.error) {
      if (hook.failurePolicy === "Ignore") return undefined;
      throw internal(`failed calling webhook ${JSON.stringify(hook.name)}: ${outcome.error}`);
    }
    if (!outcome.matches) return undefined;
  }
  return matched.def;
}

/**
 * `obj` (in the request's version) as `def`'s version serves it: the same object when it is the request's version;
 * converted by the CRD's conversion webhook when it has one; else the same fields under `def`'s apiVersion.
 */
async function inVersion(
  store: FakeStore,
  obj: KubeObject | null,
  from: ResourceDef,
  def: ResourceDef,
): Promise<KubeObject | null> {
  if (!obj) return null;
  const copy = copyJson(obj);
  if (def.version === from.version) return copy;
  const hook = conversionWebhookOf(store, from);
  if (hook) return (await convertObjects(store, from, hook, [copy], apiVersionOf(def)))[0];
  return { ...copy, apiVersion: apiVersionOf(def) };
}

/** The AdmissionReview v1 request kube-apiserver sends for `attrs` through `def` (objects converted to it). */
export async function admissionReviewFor(
  store: FakeStore,
  attrs: AdmissionAttributes,
  def: ResourceDef,
): Promise<AdmissionReview> {
  const req = requestVariable(attrs, def);
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      ...req,
      uid: crypto.randomUUID(),
      object: await inVersion(store, attrs.object, attrs.def, def),
      oldObject: await inVersion(store, attrs.oldObject, attrs.def, def),
    },
  };
}

function internal(message: string): ApiError {
  return new ApiError(
    failureStatus(500, "InternalError", `Internal error occurred: ${message}`, { causes: [{ message }] }),
    { verb: "create" },
  );
}

/** The webhook's AdmissionResponse, checked as kube checks it (else a {@link WebhookCallError}). */
async function call(store: FakeStore, hook: WebhookSpec, review: AdmissionReview): Promise<AdmissionResponse> {
  const body = await postReview(store, hook.name, hook.clientConfig, review, hook.timeoutSeconds ?? 10);
  if (body.apiVersion !== "admission.k8s.io/v1" || body.kind !== "AdmissionReview") {
    throw new WebhookCallError(
      hook.name,
      `received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${
        String(body.apiVersion ?? "")
      }, Kind=${String(body.kind ?? "")}`,
    );
  }
  const response = body.response as AdmissionResponse | undefined;
  if (!response || typeof response !== "object") {
    throw new WebhookCallError(hook.name, "received invalid webhook response: webhook response was absent");
  }
  if (response.uid !== review.request!.uid) {
    throw new WebhookCallError(
      hook.name,
      `received invalid webhook response: expected response.uid=${JSON.stringify(review.request!.uid)}, got ${
        JSON.stringify(response.uid ?? "")
      }`,
    );
  }
  return response;
}

/** kube's webhookerrors.ToStatusErr: the denial as the client sees it. */
export function deniedError(webhookName: string, status: AdmissionResponse["status"]): ApiError {
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const code = (status?.code ?? 0) < 400 ? 400 : status!.code!;
  const message = status?.message
    ? `${deniedBy}: ${status.message}`
    : status?.reason
    ? `${deniedBy}: ${status.reason}`
    : `${deniedBy} without explanation`;
  const out: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, code };
  if (status?.reason) out.reason = status.reason;
  if (status?.details) out.details = status.details as Status["details"];
  return new ApiError(out, { verb: "create" });
}

/** Refuses a dry run for a webhook with side effects (kube: NewDryRunUnsupportedErr). */
function checkDryRun(hook: WebhookSpec, attrs: AdmissionAttributes): void {
  if (!attrs.dryRun || hook.sideEffects === "None" || hook.sideEffects === "NoneOnDryRun") return;
  throw new ApiError(
    failureStatus(400, "BadRequest", `admission webhook ${JSON.stringify(hook.name)} does not support dry run`),
    { verb: "create" },
  );
}

/** Calls one webhook; undefined when the call failed and failurePolicy is Ignore. */
async function invoke(
  store: FakeStore,
  hook: WebhookSpec,
  attrs: AdmissionAttributes,
  def: ResourceDef,
  warnings: string[],
): Promise<{ response: AdmissionResponse; review: AdmissionReview } | undefined> {
  checkDryRun(hook, attrs);
  const review = await admissionReviewFor(store, attrs, def);
  let response: AdmissionResponse;
  try {
    response = await call(store, hook, review);
  } catch (err) {
    if (!(err instanceof WebhookCallError)) throw err;
    if (hook.failurePolicy === "Ignore") return undefined;
    throw internal(err.message);
  }
  for (const w of response.warnings ?? []) if (typeof w === "string") warnings.push(w);
  if (!response.allowed) throw deniedError(hook.name, response.status);
  return { response, review };
}

/**
 * Runs the mutating webhooks on `attrs.object` (in the request's version): each matching webhook in order, its JSON
 * patch applied; webhooks with reinvocationPolicy IfNeeded are called once more when a later webhook changed the
 * object. Answers the object to continue with. Throws the ApiError the client gets on a denial or failure.
 */
export async function runMutatingWebhooks(
  store: FakeStore,
  attrs: AdmissionAttributes,
  warnings: string[],
): Promise<KubeObject | null> {
  const hooks = webhooksOf(store, MUTATING);
  const reinvocable = new Set<number>();
  let reinvoke = new Set<number>();
  let object = attrs.object;
  for (const round of [0, 1]) {
    if (round === 1 && reinvoke.size === 0) break;
    const pending = reinvoke;
    reinvoke = new Set();
    for (const [i, hook] of hooks.entries()) {
      if (round === 1 && !pending.has(i)) continue;
      const current = { ...attrs, object };
      const def = invocationOf(store, hook, current);
      if (!def) continue;
      const called = await invoke(store, hook, current, def, warnings);
      if (called?.response.patch && object) {
        const patched = applyPatch(hook.name, called.review.request!.object as KubeObject, called.response);
        const back = (await inVersion(store, patched, def, attrs.def))!;
        if (!jsonEqual(back, object)) {
          object = back;
          if (round === 0) { for (const j of reinvocable) reinvoke.add(j); }
        }
      }
      if (round === 0 && hook.reinvocationPolicy === "IfNeeded") reinvocable.add(i);
    }
  }
  return object;
}

function applyPatch(name: string, object: KubeObject, response: AdmissionResponse): KubeObject {
  if (response.patchType !== "JSONPatch") {
    throw internal(`unsupported patch type ${JSON.stringify(response.patchType ?? "")}`);
  }
  let ops: unknown;
  try {
    ops = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(response.patch!), (c) => c.charCodeAt(0))));
  } catch (err) {
    throw internal(
      `admission webhook ${JSON.stringify(name)} returned an undecodable patch: ${(err as Error).message}`,
    );
  }
  try {
    const out = applyJsonPatch(object, ops);
    if (!out || typeof out !== "object" || Array.isArray(out)) throw new Error("the patched object is not an object");
    return out as KubeObject;
  } catch (err) {
    throw internal(err instanceof ApiError ? err.status.message ?? err.message : (err as Error).message);
  }
}

/**
 * Runs the validating webhooks, all at once as kube does; warnings in completion order, and of several refusals the
 * first in configuration order (kube: whichever arrives first).
 */
export async function runValidatingWebhooks(
  store: FakeStore,
  attrs: AdmissionAttributes,
  warnings: string[],
): Promise<void> {
  // Matching is decided first (a matchCondition error refuses before any call), then all are called at once.
  const calls = webhooksOf(store, VALIDATING).flatMap((hook) => {
    const def = invocationOf(store, hook, attrs);
    return def ? [{ hook, def }] : [];
  });
  const outcomes = await Promise.allSettled(calls.map(async ({ hook, def }) => {
    const own: string[] = [];
    try {
      await invoke(store, hook, attrs, def, own);
    } finally {
      warnings.push(...own);
    }
  }));
  const refused = outcomes.find((o) => o.status === "rejected");
  if (refused) throw (refused as PromiseRejectedResult).reason;
}
