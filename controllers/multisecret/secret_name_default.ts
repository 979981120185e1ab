/**
 * MultiSecret's mutating webhook: a default the CRD schema cannot express. `spec.secretName` defaults to the
 * MultiSecret's own name — a default taken from `metadata.name`, which an OpenAPI `default` (a constant) cannot say.
 * Written on CREATE, the children's name is then part of the object (`kubectl get -o yaml` shows it) and stays put.
 * The controller applies the same fallback (children.ts `childNameOf`), so failurePolicy is Ignore: with the webhook
 * down a MultiSecret is admitted unchanged and behaves the same. A CREATE with only `generateName` (no name yet) is
 * left alone.
 * @module
 */

import type { AdmissionInput } from "../../runtime/webhook/admission.ts";
import type { MultiSecret } from "./schema.ts";

/**
 * Sets `spec.secretName` to `metadata.name` when it is absent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultSecretName } from "./secret_name_default.ts";
 * const object = { metadata: { name: "creds" }, spec: {} as { secretName?: string } };
 * defaultSecretName({ object } as never);
 * assert.equal(object.spec.secretName, "creds");
 * ```
 */
export function defaultSecretName(input: AdmissionInput<MultiSecret>): void {
  const ms = input.object;
  const name = ms?.metadata?.name;
  if (!ms || !name || ms.spec?.secretName) return;
  ms.spec = { ...ms.spec, secretName: name };
}
