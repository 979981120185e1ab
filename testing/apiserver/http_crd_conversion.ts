/**
 * The resource endpoints' side of CRD conversion webhooks (crd_conversion_webhook.ts): reads (get, list, every watch
 * event) answered in the requested version are converted from the version each object is stored in; writes in a
 * version other than the storage version are converted to the storage version before the store sees them, and the
 * stored object back for the answer.
 *
 * Unlike kube-apiserver, such a write is admitted and validated in the storage version (kube validates in the request's
 * version and converts just before storage), and server-side apply in a non-storage version is refused.
 * @module
 */
import type { KubeList } from "../../runtime/types.ts";
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import { applyMergePatch } from "../../runtime/apimachinery/merge_patch.ts";
import { type ConversionWebhook, convertObjects, servedApiVersion } from "./crd_conversion_webhook.ts";
import type { FakeStore } from "./commit_path.ts";
import { listObjects, type ListOptions } from "./list.ts";
import { applyJsonPatch } from "./patch/json_patch.ts";
import type { ResourceDef } from "./resource_def.ts";
import { internalError, notFound } from "./status_errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/**
 * A stored object (`raw`) in `def`'s version. With `asStorageRead` (a GET), a failed conversion is worded as kube's
 * storage decode error (`StorageError: corrupt object, Code: 7, Key: ..., AdditionalErrorMsg: object not decodable
 * revision=<rv>: conversion webhook for ... failed: ...`).
 */
export async function readConverted(
  store: FakeStore,
  def: ResourceDef,
  hook: ConversionWebhook,
  raw: KubeObject,
  asStorageRead = false,
): Promise<KubeObject> {
  try {
    const sent = [{ ...copyJson(raw), kind: def.kind }];
    const [out] = await convertObjects(store, def, hook, sent, servedApiVersion(def));
    return out;
  } catch (err) {
    if (!asStorageRead || !(err instanceof ApiError) || err.code !== 500) throw err;
    const inner = String(err.status.message).replace(/^Internal error occurred: /, "");
    const { namespace, name, resourceVersion } = raw.metadata;
    const key = `/${def.group}/${def.plural}/${namespace ? `${namespace}/` : ""}${name}`;
    const message =
      `StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${resourceVersion}: ${inner}`;
    throw new ApiError(
      failureStatus(500, "InternalError", `Internal error occurred: ${message}`, { causes: [{ message }] }),
      { verb: "get" },
    );
  }
}

/**
 * LIST with the items as stored: kind set, apiVersion the version each was stored in (for {@link listConverted}).
 * Items share values with the store.
 */
export function listStored(store: FakeStore, def: ResourceDef, opts: ListOptions = {}): KubeList {
  return listObjects(store.objects, def, opts, {
    present: (o) => ({ ...o, kind: def.kind }),
    fieldSelector: (s) => s,
  });
}

/** A list of stored items ({@link listStored}) in `def`'s version: one review for the items that need it. */
export async function listConverted(
  store: FakeStore,
  def: ResourceDef,
  hook: ConversionWebhook,
  list: KubeList,
): Promise<KubeList> {
  const items = await convertObjects(
    store,
    def,
    hook,
    copyJson(list.items) as KubeObject[],
    servedApiVersion(def),
  );
  return { ...list, items };
}

/**
 * Converts the objects of a JSON watch stream's events (one review per event, in order); a failed conversion ends the
 * stream with an ERROR event carrying the 500 Status.
 */
export function convertWatchBody(
  body: ReadableStream<Uint8Array>,
  store: FakeStore,
  def: ResourceDef,
  hook: ConversionWebhook,
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffered = "";
  let failed = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        if (failed) return;
        buffered += decoder.decode(chunk, { stream: true });
        const lines = buffered.split("\n");
        buffered = lines.pop()!;
        for (const line of lines) {
          if (!line.trim()) continue;
          const frame = JSON.parse(line);
          if (frame.type === "ADDED" || frame.type === "MODIFIED" || frame.type === "DELETED") {
            try {
              frame.object = await readConverted(store, def, hook, frame.object);
            } catch (err) {
              const status = (err as { status?: unknown }).status ?? { message: String(err) };
              controller.enqueue(encoder.encode(JSON.stringify({ type: "ERROR", object: status }) + "\n"));
              failed = true;
              controller.terminate();
              return;
            }
          }
          controller.enqueue(encoder.encode(JSON.stringify(frame) + "\n"));
        }
      },
    }),
  );
}

/** The storage version's definition of a converted resource. */
export function storageDefOf(store: FakeStore, def: ResourceDef, hook: ConversionWebhook): ResourceDef {
  const version = hook.storageApiVersion.split("/")[1];
  return store.registry.lookup(def.group, version, def.plural) ?? def;
}

/**
 * A create or update (PUT) in `def`'s version: the body converted to the storage version, written there by `write`,
 * the result converted back.
 */
export async function writeConverted(
  store: FakeStore,
  def: ResourceDef,
  hook: ConversionWebhook,
  body: KubeObject,
  write: (storageDef: ResourceDef, body: KubeObject) => Promise<KubeObject>,
): Promise<KubeObject> {
  const storageDef = storageDefOf(store, def, hook);
  const sent = { ...copyJson(body), apiVersion: servedApiVersion(def), kind: def.kind };
  sent.metadata = sent.metadata && typeof sent.metadata === "object" ? sent.metadata : {};
  const [stored] = await convertObjects(store, def, hook, [sent], hook.storageApiVersion);
  return await readConverted(store, def, hook, await write(storageDef, stored));
}

/**
 * A merge or JSON patch in `def`'s version: applied to the stored object converted to it, the result written in the
 * storage version through `write` (an update) and converted back.
 */
export async function patchConverted(
  store: FakeStore,
  def: ResourceDef,
  hook: ConversionWebhook,
  where: { namespace?: string; name: string },
  type: string,
  patch: unknown,
  write: (storageDef: ResourceDef, body: KubeObject) => Promise<KubeObject>,
): Promise<KubeObject> {
  if (type !== "merge" && type !== "json") {
    throw internalError(
      `the fake API server does not ${type} patch ${def.plural}.${def.group} in ${def.version}, a version its conversion webhook converts: patch the storage version`,
      "patch",
    );
  }
  const raw = store.peek(def, where.namespace, where.name);
  if (!raw) throw notFound(def, where.name, "patch");
  const current = await readConverted(store, def, hook, raw);
  const next = (type === "json" ? applyJsonPatch(current, patch) : applyMergePatch(current, patch)) as KubeObject;
  next.metadata = { ...next.metadata };
  next.metadata.resourceVersion ??= current.metadata.resourceVersion;
  return await writeConverted(store, def, hook, next, write);
}
