/**
 * apiregistration.k8s.io/v1 APIServices: one with `spec.service` makes the fake proxy `/apis/<group>/<version>`
 * to that Service's endpoint (Endpoints address and port, else an ExternalName host), trusting `spec.caBundle` or,
 * with `insecureSkipTLSVerify: true`, any certificate — how `kubeop dev` serves the farm API. Like the real
 * aggregator's availability controller, status gets an `Available` condition: True (`Passed`) when the backend
 * answers `GET /apis/<group>/<version>`, False with `ServiceNotFound`, `MissingEndpoints` or `FailedDiscoveryCheck`
 * otherwise; Local APIServices (no service) are always available.
 * @module
 */
import { rfc3339 } from "./object_rules.ts";
import { LOCAL_AVAILABLE } from "./strategies/apiservices.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { FakeStore } from "./commit_path.ts";
import type { AggregatedTarget } from "./http_route.ts";
import type { StoredEvent } from "./object_storage.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** Sends `GET <path>` to an aggregated target (the router's proxy). */
export type AggregatedProbe = (target: AggregatedTarget, path: string, signal: AbortSignal) => Promise<Response>;

const KEY = "apiregistration.k8s.io/apiservices";
const APISERVICE = { group: "apiregistration.k8s.io", version: "v1", plural: "apiservices" };

/** Why an APIService's backend cannot be resolved: reason and message as the real availability controller says. */
export interface Unresolved {
  reason: "Local" | "ServiceNotFound" | "ServicePortError" | "EndpointsNotFound" | "MissingEndpoints";
  message: string;
}

/** Resolves an APIService's backend URL from the store, or explains why not. */
export function resolveService(store: FakeStore, apiService: KubeObject): { url: string } | Unresolved {
  const svc = apiService.spec?.service;
  if (!svc?.name || !svc?.namespace) return { ...LOCAL_AVAILABLE };
  const where = `service/${svc.name} in ${JSON.stringify(svc.namespace)}`;
  const port = Number(svc.port ?? 443);
  const service = store.objects.get("/services", svc.namespace, svc.name);
  if (!service) return { reason: "ServiceNotFound", message: `${where} is not present` };
  if (service.spec?.type === "ExternalName" && service.spec.externalName) {
    return { url: `https://${service.spec.externalName}:${port}` };
  }
  const servicePort = (service.spec?.ports ?? []).find((p: KubeObject) => p.port === port);
  if (!servicePort) return { reason: "ServicePortError", message: `${where} is not listening on port ${port}` };
  const endpoints = store.objects.get("/endpoints", svc.namespace, svc.name);
  if (!endpoints) return { reason: "EndpointsNotFound", message: `cannot find endpointslices for ${where}` };
  const portName = servicePort.name ?? "";
  for (const subset of endpoints.subsets ?? []) {
    const ip = subset.addresses?.[0]?.ip;
    const target = (subset.ports ?? []).find((p: KubeObject) => (p.name ?? "") === portName);
    if (ip && target) return { url: `https://${ip.includes(":") ? `[${ip}]` : ip}:${target.port}` };
  }
  return {
    reason: "MissingEndpoints",
    message: `endpoints for ${where} have no addresses with port name ${JSON.stringify(portName)}`,
  };
}

/** Watches APIService objects and keeps the proxy table in step. */
export class ApiServiceController {
  #store: FakeStore;
  #register: (gv: string, target: AggregatedTarget | undefined) => void;
  #mine = new Set<string>();
  #probe: AggregatedProbe;
  #running = new Map<string, Promise<void>>();
  #again = new Set<string>();
  #abort = new AbortController();

  constructor(
    store: FakeStore,
    register: (gv: string, target: AggregatedTarget | undefined) => void,
    probe: AggregatedProbe,
  ) {
    this.#store = store;
    this.#register = register;
    this.#probe = probe;
    store.objects.onCommit((ev) => this.#onCommit(ev));
    for (const obj of store.objects.list(KEY)) {
      this.#apply(obj);
      this.#schedule(obj.metadata.name!);
    }
  }

  /** Re-checks the availability of every APIService (after backends changed outside the store). */
  recheckAll(): void {
    for (const obj of this.#store.objects.list(KEY)) this.#schedule(obj.metadata.name!);
  }

  /** Cancels running availability checks and waits for them. */
  async drain(): Promise<void> {
    this.#abort.abort();
    await Promise.allSettled([...this.#running.values()]);
    this.#abort = new AbortController();
  }

  #schedule(name: string): void {
    if (this.#running.has(name)) {
      this.#again.add(name);
      return;
    }
    const run = this.#check(name).catch(() => {}).finally(() => {
      this.#running.delete(name);
      if (this.#again.delete(name)) this.#schedule(name);
    });
    this.#running.set(name, run);
  }

  async #check(name: string): Promise<void> {
    await Promise.resolve();
    const obj = this.#store.objects.get(KEY, "", name);
    if (!obj) return;
    const condition = await this.#availability(obj);
    const current = this.#store.objects.get(KEY, "", name);
    if (!current) return;
    const old = (current.status?.conditions ?? []).find((c: KubeObject) => c.type === "Available");
    if (
      old && old.status === condition.status && old.reason === condition.reason && old.message === condition.message
    ) {
      return;
    }
    const now = rfc3339(this.#store.clock.now());
    const next = copyJson(current);
    const others = (next.status?.conditions ?? []).filter((c: KubeObject) => c.type !== "Available");
    const lastTransitionTime = old && old.status === condition.status ? old.lastTransitionTime : now;
    next.status = { ...next.status, conditions: [...others, { type: "Available", ...condition, lastTransitionTime }] };
    this.#store.update(APISERVICE, next, { name, subresource: "status" });
  }

  async #availability(obj: KubeObject): Promise<{ status: string; reason: string; message: string }> {
    const resolved = resolveService(this.#store, obj);
    if ("reason" in resolved) {
      return {
        status: resolved.reason === "Local" ? "True" : "False",
        reason: resolved.reason,
        message: resolved.message,
      };
    }
    const path = `/apis/${obj.spec.group}/${obj.spec.version}`;
    const failed = (why: string) => ({
      status: "False",
      reason: "FailedDiscoveryCheck",
      message: `failing or missing response from ${resolved.url}${path}: ${why}`,
    });
    try {
      const res = await this.#probe(this.#targetOf(obj), path, this.#abort.signal);
      await res.body?.cancel();
      if (res.status === 503) return failed("the backend could not be reached");
      if (res.status < 200 || res.status >= 300) return failed(`bad status from ${resolved.url}${path}: ${res.status}`);
      return { status: "True", reason: "Passed", message: "all checks passed" };
    } catch (err) {
      return failed((err as Error).message);
    }
  }

  #onCommit(ev: StoredEvent): void {
    if (ev.storageKey === "/services" || ev.storageKey === "/endpoints") {
      const { namespace, name } = ev.object.metadata;
      for (const obj of this.#store.objects.list(KEY)) {
        const svc = obj.spec?.service;
        if (svc?.namespace === namespace && svc?.name === name) this.#schedule(obj.metadata.name!);
      }
      return;
    }
    if (ev.storageKey !== KEY) return;
    if (ev.type === "DELETED") {
      const gv = groupVersion(ev.object);
      if (gv && this.#mine.delete(gv)) this.#register(gv, undefined);
      return;
    }
    this.#apply(ev.object);
    const specChanged = JSON.stringify(ev.prev?.spec) !== JSON.stringify(ev.object.spec);
    if (ev.type === "ADDED" || specChanged) this.#schedule(ev.object.metadata.name!);
  }

  #targetOf(obj: KubeObject): AggregatedTarget {
    const name = obj.metadata.name;
    const caPEM = obj.spec.caBundle ? atob(obj.spec.caBundle) : undefined;
    // Resolved per request, so Endpoints created after the APIService still work.
    const service = obj.spec.service as { name?: string; namespace?: string } | undefined;
    const target: AggregatedTarget = {
      url: "https://unresolved.invalid",
      caPEM,
      insecureSkipTLSVerify: obj.spec.insecureSkipTLSVerify === true,
      // kube's aggregator checks the serving certificate for the Service's DNS name, whatever address it dials.
      ...(service?.name && service.namespace ? { serverName: `${service.name}.${service.namespace}.svc` } : {}),
    };
    Object.defineProperty(target, "url", {
      get: () => {
        const current = this.#store.objects.get(KEY, "", name!) ?? obj;
        const r = resolveService(this.#store, current);
        return "url" in r ? r.url : "https://unresolved.invalid";
      },
    });
    return target;
  }

  #apply(obj: KubeObject): void {
    const gv = groupVersion(obj);
    if (!gv || !obj.spec?.service) return;
    this.#mine.add(gv);
    this.#register(gv, this.#targetOf(obj));
  }
}

function groupVersion(obj: KubeObject): string | undefined {
  const { group, version } = obj.spec ?? {};
  return group && version ? `${group}/${version}` : undefined;
}
