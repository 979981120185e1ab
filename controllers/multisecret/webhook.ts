/**
 * MultiSecret's validating webhook: a rule the CRD schema cannot say — two MultiSecrets must not want the same
 * Secret. Children are named `spec.secretName` (default: the MultiSecret's name) in every namespace the
 * `namespaceSelector` selects, so a MultiSecret is refused when another one's children would share a name and a
 * namespace with its own (the controller would otherwise report SecretConflict on whichever came second, and which
 * one wins would depend on timing). Checked on CREATE and on an UPDATE that changes the child name or the selector,
 * against the Namespaces that exist now (a Namespace created later can still bring a conflict, which
 * the controller reports). An invalid selector is left to the controller (Degraded InvalidSelector).
 * @module
 */

import type { KubeClient } from "../../runtime/client/client.ts";
import { deepEqual } from "../../runtime/apimachinery/equality.ts";
import { type LabelMatcher, labelSelectorMatcher } from "../../runtime/apimachinery/label_selector.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { type AdmissionInput, denied, type ValidationVerdict } from "../../runtime/webhook/admission.ts";
import { Webhook } from "../../runtime/webhook/webhook.ts";
import { childNameOf } from "./children.ts";
import { defaultSecretName } from "./secret_name_default.ts";
import { type MultiSecret, MultiSecretType } from "./schema.ts";

/** What the handler needs: a client that may list MultiSecrets and Namespaces (multisecret's RBAC has both). */
export interface MultiSecretWebhookDeps {
  /** Lists MultiSecrets (all namespaces) and Namespaces. */
  client: Pick<KubeClient, "list">;
}

/** Namespaces named in a refusal before "and N more". */
const SHOWN_NAMESPACES = 3;

function matcherOf(ms: MultiSecret): LabelMatcher | undefined {
  try {
    return labelSelectorMatcher(ms.spec?.namespaceSelector);
  } catch {
    return undefined; // the controller reports an invalid selector
  }
}

/**
 * Refuses a MultiSecret whose children would collide with another MultiSecret's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { webhookRoutes } from "../../runtime/webhook/webhook.ts";
 * import { FakeCluster, reviewThroughRoute } from "../../testing/mod.ts";
 * import { multiSecretWebhook } from "./webhook.ts";
 * import { type MultiSecret, multiSecretCrds, MultiSecretType } from "./schema.ts";
 * const cluster = new FakeCluster({ crds: multiSecretCrds() });
 * const multiSecret = (name: string): MultiSecret => ({
 *   apiVersion: "multi.ddnw.ml/v1alpha1",
 *   kind: "MultiSecret",
 *   metadata: { name, namespace: "default" },
 *   spec: { secretName: "shared" }, // every namespace
 * });
 * await cluster.client.create(MultiSecretType, multiSecret("first"));
 * const [route] = webhookRoutes([multiSecretWebhook({ client: cluster.client })]); // validateMultiSecretChildren
 * const verdict = await reviewThroughRoute(route, MultiSecretType, { operation: "CREATE", object: multiSecret("second") });
 * assert.equal(verdict.allowed, false);
 * assert.match(verdict.status?.message ?? "", /^spec\.secretName: Secret "shared" in namespaces .* is already wanted by/);
 * ```
 */
export async function validateMultiSecretChildren(
  deps: MultiSecretWebhookDeps,
  input: AdmissionInput<MultiSecret>,
): Promise<ValidationVerdict | undefined> {
  const ms = input.object;
  if (!ms) return undefined;
  const old = input.oldObject;
  if (
    old && childNameOf(old) === childNameOf(ms) &&
    deepEqual(old.spec?.namespaceSelector, ms.spec?.namespaceSelector)
  ) return undefined;
  const match = matcherOf(ms);
  if (!match) return undefined;
  const name = childNameOf(ms);
  const { signal } = input;
  const others = (await deps.client.list<MultiSecret>(MultiSecretType, { signal })).items.filter((other) =>
    !(other.metadata.namespace === ms.metadata.namespace && other.metadata.name === ms.metadata.name) &&
    !other.metadata.deletionTimestamp && childNameOf(other) === name
  );
  if (!others.length) return undefined;
  const namespaces = (await deps.client.list<KubeObject>(CoreTypes.Namespace, { signal })).items;
  const mine = namespaces.filter((ns) => match(ns.metadata.labels ?? {})).map((ns) => ns.metadata.name!);
  for (const other of others) {
    const theirs = matcherOf(other);
    if (!theirs) continue;
    const shared = mine.filter((n) => theirs(namespaces.find((ns) => ns.metadata.name === n)!.metadata.labels ?? {}));
    if (!shared.length) continue;
    const shown = shared.slice(0, SHOWN_NAMESPACES).join(", ");
    const more = shared.length > SHOWN_NAMESPACES ? ` and ${shared.length - SHOWN_NAMESPACES} more` : "";
    return denied(
      `spec.secretName: Secret "${name}" in namespaces ${shown}${more} is already wanted by MultiSecret ` +
        `${other.metadata.namespace}/${other.metadata.name}; choose another spec.secretName or narrow ` +
        `spec.namespaceSelector`,
      { code: 422, reason: "Invalid" },
    );
  }
  return undefined;
}

/**
 * MultiSecret's webhooks, registered next to its controller (`kubeop run --controllers multisecret`): the validating
 * one above (failurePolicy Fail) and a mutating one defaulting `spec.secretName` on CREATE (./secret_name_default.ts;
 * failurePolicy Ignore, the controller applies the same fallback).
 */
export function multiSecretWebhook(deps: MultiSecretWebhookDeps): Webhook<MultiSecret> {
  return new Webhook<MultiSecret>(MultiSecretType)
    .validate((input) => validateMultiSecretChildren(deps, input))
    .default(defaultSecretName, { operations: ["CREATE"], failurePolicy: "Ignore" });
}
