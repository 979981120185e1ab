/**
 * CRD conversion webhooks (`spec.conversion.strategy: Webhook`): objects stored in one version and served in another
 * are sent to the webhook in a ConversionReview v1 (apiextensions.k8s.io/v1), as apiextensions-apiserver's
 * webhookConverter does — one review per read, per list (all items that need it, in order) and per watch event;
 * objects already in the desired version are not sent. The answer is checked as kube checks it (uid, Success, the
 * same number of objects, each in the desired apiVersion) and only labels and annotations of metadata are taken
 * from it. Failures are 500 InternalError `conversion webhook for <group>/<version>, Kind=<Kind> failed: <why>`.
 * @module
 */
import type { ConversionResponse, ConversionReview } from "../../runtime/webhook/review_types.ts";
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import { apiVersionOf } from "../../runtime/types.ts";
import { postReview, WebhookCallError, type WebhookClientConfig } from "./admission_webhook_client.ts";
import type { FakeStore } from "./commit_path.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

/** A custom resource whose CRD converts through a webhook. */
export interface ConversionWebhook {
  clientConfig: WebhookClientConfig;
  /** The CRD's storage version's apiVersion (`group/version`). */
  storageApiVersion: string;
}

/** The conversion webhook of `def`'s CRD, when its strategy is Webhook. */
export function conversionWebhookOf(store: FakeStore, def: ResourceDef): ConversionWebhook | undefined {
  if (!def.custom) return undefined;
  const crd = store.objects.get("apiextensions.k8s.io/customresourcedefinitions", "", `${def.plural}.${def.group}`);
  const conversion = crd?.spec?.conversion;
  if (conversion?.strategy !== "Webhook" || !conversion.webhook?.clientConfig) return undefined;
  const storage = (crd!.spec.versions ?? []).find((v: KubeObject) => v.storage === true);
  if (!storage) return undefined;
  return { clientConfig: conversion.webhook.clientConfig, storageApiVersion: `${def.group}/${storage.name}` };
}

/** kube's error: the GroupVersionKind named is the one converted from (the first object's stored version). */
function failed(from: string | undefined, kind: string, why: string): ApiError {
  const [group, version] = String(from).split("/");
  const message = `conversion webhook for ${group}/${version}, Kind=${kind} failed: ${why}`;
  return new ApiError(failureStatus(500, "InternalError", `Internal error occurred: ${message}`), { verb: "get" });
}

/**
 * `objects` (stored forms, any versions) in `desiredApiVersion`, through the webhook for those in another version.
 * Throws the 500 kube answers when the webhook fails or answers something unusable.
 */
export async function convertObjects(
  store: FakeStore,
  def: ResourceDef,
  hook: ConversionWebhook,
  objects: KubeObject[],
  desiredApiVersion: string,
): Promise<KubeObject[]> {
  const pending = objects.map((o, i) => ({ o, i })).filter(({ o }) => o.apiVersion !== desiredApiVersion);
  if (pending.length === 0) return objects;
  const uid = crypto.randomUUID();
  const review: ConversionReview = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: { uid, desiredAPIVersion: desiredApiVersion, objects: pending.map(({ o }) => o) },
  };
  const name = `${def.plural}.${def.group}`;
  let body: Record<string, unknown>;
  try {
    body = await postReview(store, name, hook.clientConfig, review, 30);
  } catch (err) {
    if (!(err instanceof WebhookCallError)) throw err;
    throw failed(pending[0].o.apiVersion, def.kind, err.reason.replace(/^failed to call webhook: /, ""));
  }
  const response = body.response as ConversionResponse | undefined;
  if (!response) throw failed(pending[0].o.apiVersion, def.kind, "conversion webhook response was absent");
  if (response.uid !== uid) {
    throw failed(
      pending[0].o.apiVersion,
      def.kind,
      `expected response.uid=${JSON.stringify(uid)}, got ${response.uid}`,
    );
  }
  if (response.result?.status !== "Success") {
    throw failed(pending[0].o.apiVersion, def.kind, response.result?.message ?? "conversion failed");
  }
  const converted = response.convertedObjects ?? [];
  if (converted.length !== pending.length) {
    throw failed(
      pending[0].o.apiVersion,
      def.kind,
      `returned ${converted.length} objects, expected ${pending.length}`,
    );
  }
  const out = [...objects];
  pending.forEach(({ o, i }, n) => {
    const c = converted[n] as KubeObject;
    if (c?.apiVersion !== desiredApiVersion) {
      throw failed(
        pending[0].o.apiVersion,
        def.kind,
        `invalid converted object at index ${n}: invalid apiVersion ${JSON.stringify(c?.apiVersion)}`,
      );
    }
    // Only labels and annotations of metadata may change (kube: restrictToLabelsAndAnnotations-style check).
    const metadata = { ...o.metadata };
    if (c.metadata?.labels !== undefined) metadata.labels = c.metadata.labels;
    else delete metadata.labels;
    if (c.metadata?.annotations !== undefined) metadata.annotations = c.metadata.annotations;
    else delete metadata.annotations;
    out[i] = { ...c, kind: def.kind, metadata };
  });
  return out;
}

/** `def`'s apiVersion (what a request in `def`'s version wants its objects in). */
export function servedApiVersion(def: ResourceDef): string {
  return apiVersionOf(def);
}
