/**
 * apiregistration.k8s.io/v1 APIServices: one with `spec.service` makes the fake proxy `/apis/<group>/<version>`
 * to that Service's endpoint (Endpoints address and port, else an ExternalName host), with `spec.caBundle` as the
 * trusted CA — how `kubeop dev` serves the farm API. Status gets an `Available` condition.
 * @module
 */
import { rfc3339 } from "./object_rules.ts";
import type { KubeObject } from "../runtime/types.ts";
import type { AdmissionContext, FakeStore } from "./fake_store.ts";
import type { AggregatedTarget } from "./http_router.ts";
import type { StoredEvent } from "./store.ts";

const KEY = "apiregistration.k8s.io/apiservices";

/** Resolves an APIService's backend URL from the store, or explains why not. */
export function resolveService(store: FakeStore, apiService: KubeObject): { url: string } | { reason: string } {
  const svc = apiService.spec?.service;
  if (!svc?.name || !svc?.namespace) return { reason: "Local" };
  const port = Number(svc.port ?? 443);
  const endpoints = store.objects.get("/endpoints", svc.namespace, svc.name);
  const subset = endpoints?.subsets?.[0];
  const ip = subset?.addresses?.[0]?.ip;
  if (ip) {
    const service = store.objects.get("/services", svc.namespace, svc.name);
    const servicePort = (service?.spec?.ports ?? []).find((p: KubeObject) => p.port === port);
    const named = servicePort?.name ? subset.ports?.find((p: KubeObject) => p.name === servicePort.name) : undefined;
    const targetPort = named?.port ?? subset.ports?.[0]?.port ?? port;
    return { url: `https://${ip.includes(":") ? `[${ip}]` : ip}:${targetPort}` };
  }
  const service = store.objects.get("/services", svc.namespace, svc.name);
  if (!service) return { reason: "ServiceNotFound" };
  if (service.spec?.type === "ExternalName" && service.spec.externalName) {
    return { url: `https://${service.spec.externalName}:${port}` };
  }
  return { reason: "MissingEndpoints" };
}

/** Watches APIService objects and keeps the proxy table in step. */
export class ApiServiceController {
  #store: FakeStore;
  #register: (gv: string, target: AggregatedTarget | undefined) => void;
  #mine = new Set<string>();

  constructor(store: FakeStore, register: (gv: string, target: AggregatedTarget | undefined) => void) {
    this.#store = store;
    this.#register = register;
    store.admission.push((ctx) => this.#admit(ctx));
    store.objects.onCommit((ev) => this.#onCommit(ev));
    for (const obj of store.objects.list(KEY)) this.#apply(obj);
  }

  #admit(ctx: AdmissionContext): void {
    if (ctx.def.group !== "apiregistration.k8s.io" || ctx.subresource === "status") return;
    const resolved = resolveService(this.#store, ctx.object);
    const available = "url" in resolved || resolved.reason === "Local";
    const now = rfc3339(this.#store.clock.now());
    ctx.object.status = {
      conditions: [{
        type: "Available",
        status: available ? "True" : "False",
        lastTransitionTime: now,
        reason: available ? "Passed" : resolved.reason,
        message: available ? "all checks passed" : `service unavailable: ${resolved.reason}`,
      }],
    };
  }

  #onCommit(ev: StoredEvent): void {
    if (ev.storageKey !== KEY) return;
    if (ev.type === "DELETED") {
      const gv = groupVersion(ev.object);
      if (gv && this.#mine.delete(gv)) this.#register(gv, undefined);
    } else this.#apply(ev.object);
  }

  #apply(obj: KubeObject): void {
    const gv = groupVersion(obj);
    if (!gv || !obj.spec?.service) return;
    const caPEM = obj.spec.caBundle ? atob(obj.spec.caBundle) : undefined;
    const name = obj.metadata.name;
    // Resolved per request, so Endpoints created after the APIService still work.
    const target: AggregatedTarget = { url: "https://unresolved.invalid", caPEM };
    Object.defineProperty(target, "url", {
      get: () => {
        const current = this.#store.objects.get(KEY, "", name!) ?? obj;
        const r = resolveService(this.#store, current);
        return "url" in r ? r.url : "https://unresolved.invalid";
      },
    });
    this.#mine.add(gv);
    this.#register(gv, target);
  }
}

function groupVersion(obj: KubeObject): string | undefined {
  const { group, version } = obj.spec ?? {};
  return group && version ? `${group}/${version}` : undefined;
}
