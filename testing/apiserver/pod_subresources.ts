/**
 * Pod subresources the fake serves beyond status and the connect ones (streaming_subresources.ts): `pods/binding`
 * and the `bindings` resource (what a scheduler does: kube's BindingREST sets spec.nodeName, copies the Binding's
 * annotations and labels, clears status.nominatedNodeName and sets the PodScheduled condition; a pod being deleted,
 * already bound or with scheduling gates is 409 on `pods/binding`; an invalid target is kube's aggregate error, a 500
 * without reason) and `pods/eviction`.
 * @module
 */
import { failureStatus } from "../../runtime/client/errors.ts";
import type { FakeStore } from "./commit_path.ts";
import { decodeBody, mediaType, readBody, requireObject } from "./http_body.ts";
import { jsonResponse, type ResourceRoute } from "./http_resources.ts";
import { badRequest, internalError, methodNotAllowed } from "./status_errors.ts";
import type { StatusCause } from "../../runtime/client/errors.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { Clock } from "../../runtime/clock.ts";
import { rfc3339 } from "./object_rules.ts";
import { dns1123SubdomainErrors } from "../../runtime/apimachinery/names.ts";
import { fieldInvalid, fieldNotSupported, fieldRequired } from "./validation/field_errors.ts";

type Handler = (req: Request, route: ResourceRoute, url: URL) => Promise<Response>;

/** Handlers keyed `group/plural/subresource` for the router. */
export function podSubresources(store: () => FakeStore, clock: Clock): Map<string, Handler> {
  const handlers = new Map<string, Handler>();
  handlers.set("/pods/binding", async (req, route, url) => {
    if (req.method !== "POST") throw methodNotAllowed(route.def, req.method.toLowerCase());
    const body = await bindingBody(req);
    if (body.metadata?.name !== route.name) {
      throw badRequest("name in URL does not match name in Binding object", "create");
    }
    return bindPod(store(), route.def, route.namespace!, body, url, clock);
  });
  // The `bindings` resource: the pod is the Binding's metadata.name.
  handlers.set("/bindings", async (req, route, url) => {
    if (req.method !== "POST" || route.name) {
      throw methodNotAllowed(route.def, req.method === "POST" ? "create" : "get");
    }
    const body = await bindingBody(req);
    return bindPod(store(), store().def(POD), route.namespace!, body, url, clock);
  });
  handlers.set("/pods/eviction", async (req, route) => {
    if (req.method !== "POST") throw methodNotAllowed(route.def, req.method.toLowerCase());
    const body = requireObject(
      decodeBody(await readBody(req), mediaType(req.headers.get("content-type")), "create"),
      "create",
    ) as { metadata?: { name?: string }; deleteOptions?: Record<string, unknown> };
    if (body.metadata?.name && body.metadata.name !== route.name) {
      throw badRequest("name in URL does not match name in Eviction object", "create");
    }
    // No PodDisruptionBudgets in the fake: every eviction is allowed and deletes the pod (its grace period applies).
    const opts = body.deleteOptions ?? {};
    store().delete(route.def, route.name!, {
      namespace: route.namespace,
      gracePeriodSeconds: typeof opts.gracePeriodSeconds === "number" ? opts.gracePeriodSeconds : undefined,
      preconditions: opts.preconditions as { uid?: string; resourceVersion?: string } | undefined,
      dryRun: Array.isArray(opts.dryRun) && opts.dryRun.includes("All"),
    });
    return jsonResponse(201, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
  });
  return handlers;
}

const POD = { group: "", version: "v1", plural: "pods", kind: "Pod" };

type Binding =
  & { metadata?: { name?: string; annotations?: Record<string, string>; labels?: Record<string, string> } }
  & {
    target?: { kind?: string; name?: string };
  };

async function bindingBody(req: Request): Promise<Binding> {
  return requireObject(
    decodeBody(await readBody(req), mediaType(req.headers.get("content-type")), "create"),
    "create",
  ) as Binding;
}

/** kube's ValidatePodBinding, as the aggregate error BindingREST returns (500, no reason). */
function validateBinding(binding: Binding): void {
  const causes: StatusCause[] = [];
  const target = binding.target ?? {};
  if (target.kind && target.kind !== "Node") {
    causes.push(fieldNotSupported("target.kind", target.kind, ["Node", "<empty>"]));
  }
  if (!target.name) causes.push(fieldRequired("target.name"));
  else if (!target.kind || target.kind === "Node") {
    for (const msg of dns1123SubdomainErrors(target.name)) causes.push(fieldInvalid("target.name", target.name, msg));
  }
  if (causes.length === 0) return;
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  throw internalError(parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`, "create");
}

function bindPod(s: FakeStore, podDef: ResourceDef, namespace: string, binding: Binding, url: URL, clock: Clock) {
  validateBinding(binding);
  const name = binding.metadata?.name ?? "";
  const pod = s.get(podDef, name, { namespace });
  const conflict = (why: string) =>
    jsonResponse(
      409,
      failureStatus(409, "Conflict", `Operation cannot be fulfilled on pods/binding "${name}": ${why}`, {
        name,
        kind: "pods/binding",
      }),
    );
  if (pod.metadata.deletionTimestamp) return conflict(`pod ${name} is being deleted, cannot be assigned to a host`);
  if (pod.spec?.nodeName) return conflict(`pod ${name} is already assigned to node "${pod.spec.nodeName}"`);
  if (pod.spec?.schedulingGates?.length) return conflict(`pod ${name} has non-empty .spec.schedulingGates`);
  const dryRun = url.searchParams.getAll("dryRun").includes("All");
  if (!dryRun) {
    pod.spec = { ...pod.spec, nodeName: binding.target!.name };
    pod.metadata.annotations = { ...pod.metadata.annotations, ...binding.metadata?.annotations };
    if (binding.metadata?.labels) pod.metadata.labels = { ...pod.metadata.labels, ...binding.metadata.labels };
    const updated = s.update(podDef, pod, { namespace, name });
    const status = { ...(updated.status ?? {}) } as {
      nominatedNodeName?: string;
      conditions?: Record<string, unknown>[];
    };
    delete status.nominatedNodeName;
    const conditions = [...(status.conditions ?? [])];
    const at = conditions.findIndex((c) => c.type === "PodScheduled");
    const old = at >= 0 ? conditions[at] : undefined;
    const now = rfc3339(clock.now());
    const next = {
      type: "PodScheduled",
      status: "True",
      lastProbeTime: null,
      lastTransitionTime: old?.status === "True" ? old.lastTransitionTime : now,
    };
    if (at >= 0) conditions[at] = next;
    else conditions.push(next);
    s.update(podDef, { ...updated, status: { ...status, conditions } }, { namespace, name, subresource: "status" });
  }
  return jsonResponse(201, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
}
