/**
 * The `scale` subresource of CRDs that declare `subresources.scale`: GET answers an autoscaling/v1 Scale built from
 * `specReplicasPath`, `statusReplicasPath` and `labelSelectorPath`; PUT and merge/JSON PATCH change the replicas at
 * `specReplicasPath` of the custom resource (what `kubectl scale` and HPAs do).
 * @module
 */
import type { ScalePaths } from "./validation/custom_resource_scale.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { FakeStore } from "./commit_path.ts";
import { decodeBody, mediaType, readBody, requireObject } from "./http_body.ts";
import { jsonResponse, type ResourceRoute } from "./http_resources.ts";
import { applyJsonPatch } from "./patch/json_patch.ts";
import { managedFieldsAfterScale } from "./patch/managed_fields_writes.ts";
import { fieldManagerOf } from "./http_write_options.ts";
import { applyMergePatch } from "../../runtime/apimachinery/merge_patch.ts";
import { badRequest, conflict, invalid, methodNotAllowed, notFound, unsupportedMediaType } from "./status_errors.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

function segments(path: string): string[] {
  return path.replace(/^\./, "").split(".").filter(Boolean);
}

function readPath(obj: KubeObject, path: string | undefined): unknown {
  if (!path) return undefined;
  let cur: unknown = obj;
  for (const s of segments(path)) {
    if (!cur || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

function writePath(obj: KubeObject, path: string, value: unknown): void {
  const parts = segments(path);
  let cur = obj as Record<string, unknown>;
  for (const s of parts.slice(0, -1)) {
    if (!cur[s] || typeof cur[s] !== "object") cur[s] = {};
    cur = cur[s] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

/** The autoscaling/v1 Scale of a custom resource. */
export function scaleOf(obj: KubeObject, paths: ScalePaths): KubeObject {
  const spec = readPath(obj, paths.specReplicasPath);
  const status = readPath(obj, paths.statusReplicasPath);
  const selector = readPath(obj, paths.labelSelectorPath);
  const m = obj.metadata;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: m.name,
      ...(m.namespace ? { namespace: m.namespace } : {}),
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: typeof spec === "number" ? { replicas: spec } : {},
    status: {
      replicas: typeof status === "number" ? status : 0,
      ...(typeof selector === "string" ? { selector } : {}),
    },
  };
}

/** Built-in workloads (apps deployments, replicasets, statefulsets; replication controllers) scale `.spec.replicas`. */
const BUILTIN_PATHS: ScalePaths = { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" };

/**
 * A built-in workload's `spec.selector.matchLabels` (a ReplicationController's `spec.selector` map) as a selector
 * string (Scale's `status.selector`).
 */
function builtinSelector(obj: KubeObject): string | undefined {
  const selector = obj.spec?.selector;
  const labels = (obj.kind === "ReplicationController" ? selector : selector?.matchLabels) as
    | Record<string, string>
    | undefined;
  if (!labels) return undefined;
  return Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`).join(",");
}

/** The handler for `<plural>/<name>/scale` of custom resources and of built-in workloads. */
export function scaleHandler(store: () => FakeStore): (req: Request, route: ResourceRoute) => Promise<Response> {
  return async (req, route) => {
    const s = store();
    const { def, namespace, name } = route;
    const paths = def.custom ? def.scale : BUILTIN_PATHS;
    if (!paths || !name) throw notFound(def, `${name}/scale`);
    const current = s.get(def, name, { namespace });
    const present = (obj: KubeObject) => {
      const scale = scaleOf(obj, paths);
      const selector = def.custom ? undefined : builtinSelector(obj);
      if (selector) scale.status.selector = selector;
      return scale;
    };
    const scale = present(current);
    if (req.method === "GET") return jsonResponse(200, scale);
    let next: KubeObject;
    const type = mediaType(req.headers.get("content-type"));
    const body = decodeBody(await readBody(req), type, req.method === "PUT" ? "update" : "patch");
    if (req.method === "PUT") {
      next = requireObject(body, "update") as KubeObject;
      // The body decodes as autoscaling/v1 Scale only (kube's scheme has no apps/v1 or autoscaling/v2 Scale).
      const kind = String(next.kind ?? "Scale");
      const apiVersion = String(next.apiVersion ?? "autoscaling/v1");
      if (kind !== "Scale" || apiVersion !== "autoscaling/v1") {
        throw badRequest(
          `${kind} in version "${apiVersion.split("/").pop()}" cannot be handled as a Scale: no kind "${kind}" is ` +
            `registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:111"`,
          "update",
        );
      }
    } else if (req.method === "PATCH") {
      if (type === "application/json-patch+json") next = applyJsonPatch(scale, body) as KubeObject;
      else if (type === "application/merge-patch+json" || type === "application/strategic-merge-patch+json") {
        next = applyMergePatch(scale, requireObject(body, "patch")) as KubeObject;
      } else throw unsupportedMediaType(["application/json-patch+json", "application/merge-patch+json"]);
    } else throw methodNotAllowed(def, req.method.toLowerCase());
    const verb = req.method === "PUT" ? "update" : "patch";
    const rv = next.metadata?.resourceVersion;
    if (rv && rv !== current.metadata.resourceVersion) throw conflict(def, name, verb);
    const replicas = next.spec?.replicas;
    // A custom resource's replicas are validated as the custom resource (its schema, then ValidateScaleSpec).
    if (!Number.isInteger(replicas) || (replicas < 0 && !def.custom)) {
      throw invalid({ ...def, group: "autoscaling", kind: "Scale" }, name, [{
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
        field: "spec.replicas",
      }], verb);
    }
    if (next.metadata?.name && next.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`,
        verb,
      );
    }
    const updated = copyJson(current);
    writePath(updated, paths.specReplicasPath, replicas);
    if (replicas !== readPath(current, paths.specReplicasPath)) {
      // kube's ScaleHandler: the writer's entry (subresource "scale") takes the replicas path over.
      const replicasPath = segments(paths.specReplicasPath).map((s) => `f:${s}`);
      const manager = fieldManagerOf(req, new URL(req.url).searchParams);
      const entries = managedFieldsAfterScale(
        current.metadata.managedFields,
        manager,
        replicasPath,
        current.apiVersion ?? "",
      );
      if (entries.length > 0) updated.metadata.managedFields = entries;
    }
    const stored = s.update(def, updated, { namespace, name });
    return jsonResponse(200, present(stored));
  };
}
