/**
 * Pod subresources the fake serves beyond status: `pods/log` (text from the fake kubelet) and `pods/binding`
 * (sets spec.nodeName, what a scheduler does).
 * @module
 */
import { failureStatus } from "../../runtime/client/errors.ts";
import type { FakeStore } from "./commit_path.ts";
import { decodeBody, mediaType, readBody, requireObject } from "./http_body.ts";
import { jsonResponse, type ResourceRoute } from "./http_resources.ts";
import type { FakeKubelet } from "./kubelet.ts";
import { badRequest, methodNotAllowed } from "./status_errors.ts";

type Handler = (req: Request, route: ResourceRoute, url: URL) => Promise<Response>;

/** Handlers keyed `group/plural/subresource` for the router. */
export function podSubresources(store: () => FakeStore, kubelet: () => FakeKubelet | undefined): Map<string, Handler> {
  const handlers = new Map<string, Handler>();
  handlers.set("/pods/log", (req, route, url) => {
    if (req.method !== "GET") throw methodNotAllowed(route.def, req.method.toLowerCase());
    const pod = store().get(route.def, route.name!, { namespace: route.namespace });
    const names: string[] = (pod.spec?.containers ?? []).map((c: { name: string }) => c.name);
    let container = url.searchParams.get("container") ?? undefined;
    if (!container) {
      if (names.length !== 1) {
        throw badRequest(
          `a container name must be specified for pod ${route.name}, choose one of: [${names.join(" ")}]`,
          "get",
        );
      }
      container = names[0];
    }
    if (!names.includes(container)) {
      throw badRequest(`container ${container} is not valid for pod ${route.name}`, "get");
    }
    let text = kubelet()?.logs(route.namespace!, route.name!, container) ?? "";
    const tail = Number(url.searchParams.get("tailLines") ?? "");
    if (Number.isInteger(tail) && tail >= 0 && url.searchParams.has("tailLines")) {
      const lines = text.split("\n");
      const ends = text.endsWith("\n");
      const body = ends ? lines.slice(0, -1) : lines;
      text = body.slice(Math.max(0, body.length - tail)).join("\n") + (ends && tail > 0 ? "\n" : "");
    }
    return Promise.resolve(new Response(text, { headers: { "content-type": "text/plain" } }));
  });
  handlers.set("/pods/binding", async (req, route) => {
    if (req.method !== "POST") throw methodNotAllowed(route.def, req.method.toLowerCase());
    const body = requireObject(
      decodeBody(await readBody(req), mediaType(req.headers.get("content-type")), "create"),
      "create",
    );
    const target = (body.target ?? {}) as { name?: string };
    if (!target.name) throw badRequest("target.name: Required value", "create");
    const s = store();
    const pod = s.get(route.def, route.name!, { namespace: route.namespace });
    if (pod.spec?.nodeName) {
      return jsonResponse(
        409,
        failureStatus(
          409,
          "Conflict",
          `Operation cannot be fulfilled on pods/binding "${route.name}": pod ${route.name} is already assigned to node "${pod.spec.nodeName}"`,
        ),
      );
    }
    pod.spec = { ...pod.spec, nodeName: target.name };
    s.update(route.def, pod, { namespace: route.namespace, name: route.name });
    return jsonResponse(201, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
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
