/**
 * A fake kubelet for the fake API server: registers Node `fake-node`, binds unscheduled pods to it (those of
 * `default-scheduler`; a pod naming another scheduler stays Pending, unbound, as no scheduler picks it), and moves them
 * Pending → Running (podIP 10.244.x.y, Ready conditions) → Succeeded/Failed after each container's scripted run.
 * The script comes from {@link FakeKubeletOptions.behaviour}; without one, `echo`/`sleep`/`exit` in the container
 * command are interpreted and command-less containers run forever. restartPolicy Always/OnFailure restart failed
 * containers with a growing restartCount and CrashLoopBackOff instead of failing the pod. Time goes through the
 * injected clock.
 * @module
 */
import { rfc3339 } from "./object_rules.ts";
import { podFitsNode } from "./node_affinity.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { FakeStore } from "./commit_path.ts";
import type { StoredEvent } from "./object_storage.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** The scheduler the fake kubelet stands in for; pods naming any other are never bound. */
const DEFAULT_SCHEDULER = "default-scheduler";

/** What one container does when it runs. */
export interface ContainerOutcome {
  /** Exit code of the container's process. */
  exitCode: number;
  /** Written to the container status' terminated.message. */
  terminationMessage?: string;
  /** Text the container prints (served by pods/log). */
  log?: string;
  /** How long it runs; default 0. Infinity: never exits. */
  runMs?: number;
}

/** Options of the fake kubelet. */
export interface FakeKubeletOptions {
  /** Decides a container's outcome; undefined falls back to interpreting its command. */
  behaviour?: (pod: KubeObject, container: Json) => ContainerOutcome | undefined;
  /** Node name; default `fake-node`. */
  nodeName?: string;
}

/** A loosely typed JSON map (containers, statuses), as the fake kubelet reads them. */
// deno-lint-ignore no-explicit-any
export type Json = Record<string, any>;

const POD = { group: "", version: "v1", plural: "pods" };
/** The field manager of the kubelet's status writes (its User-Agent's first word). */
const KUBELET = "kubelet";
/** Who takes the not-ready taint off a Ready node in kube (kube-controller-manager's node lifecycle controller). */
const NODE_LIFECYCLE_MANAGER = "kube-controller-manager";
const NOT_READY = "node.kubernetes.io/not-ready";
const NODE = { group: "", version: "v1", plural: "nodes" };
const BACKOFF_BASE_MS = 10_000;
const BACKOFF_MAX_MS = 300_000;

/** Interprets `echo`, `sleep N` and `exit N` in a container's command and args (sh -c scripts included). */
export function interpretCommand(container: Json): ContainerOutcome {
  const words: string[] = [...(container.command ?? []), ...(container.args ?? [])].map(String);
  if (words.length === 0) return { exitCode: 0, runMs: Infinity };
  const script = words[0] === "sh" || words[0] === "/bin/sh" || words[0] === "bash" || words[0] === "/bin/bash"
    ? words.slice(words.indexOf("-c") + 1).join(" ")
    : words.map((w) => (/\s/.test(w) ? JSON.stringify(w) : w)).join(" ");
  let log = "";
  let runMs = 0;
  let exitCode = 0;
  for (const raw of script.split(/;|&&|\n/)) {
    const part = raw.trim();
    let m: RegExpMatchArray | null;
    if ((m = part.match(/^echo\s+(.*)$/))) log += m[1].replace(/^["']|["']$/g, "") + "\n";
    else if ((m = part.match(/^sleep\s+(\S+)$/))) {
      runMs += m[1] === "infinity" ? Infinity : Number(m[1]) * 1000 || 0;
    } else if ((m = part.match(/^exit\s+(\d+)$/))) {
      exitCode = Number(m[1]);
      break;
    } else if (part === "false") {
      exitCode = 1;
      break;
    }
  }
  return { exitCode, log, runMs };
}

/** Per running pod (created on demand: a pod that runs for ever with no output holds none of them). */
interface PodRun {
  timers?: Array<() => void>;
  logs?: Map<string, string>;
  restarts?: Map<string, number>;
}

/** The fake kubelet. */
export class FakeKubelet {
  /** The node the kubelet runs pods for. */
  readonly nodeName: string;
  #store: () => FakeStore;
  #clock: Clock;
  #opts: FakeKubeletOptions;
  #runs = new Map<string, PodRun>();
  #nextIp = 2;
  #unsubscribe?: () => void;

  /**

   * Built by the fake server when its `kubelet` option is set.

   * @ignore

   */
  constructor(opts: { store: () => FakeStore; clock: Clock; options?: FakeKubeletOptions }) {
    this.#store = opts.store;
    this.#clock = opts.clock;
    this.#opts = opts.options ?? {};
    this.nodeName = this.#opts.nodeName ?? "fake-node";
  }

  /**
   * The node is created Ready, but kube-apiserver's TaintNodesByCondition admission gives every new Node the
   * `node.kubernetes.io/not-ready:NoSchedule` taint; kube-controller-manager's node lifecycle controller takes it off
   * once the node reports Ready. No such controller runs here, so the fake kubelet does it, as that controller's manager
   * (schedulers and the DaemonSet controller would otherwise see a node no pod may land on).
   */
  #untaintReadyNode(): void {
    const store = this.#store();
    const node = store.peek(store.def(NODE), undefined, this.nodeName);
    const taints: Array<{ key?: string }> = node?.spec?.taints ?? [];
    if (!node || !taints.some((t) => t.key === NOT_READY)) return;
    const rest = taints.filter((t) => t.key !== NOT_READY);
    const spec = { ...node.spec, taints: rest.length > 0 ? rest : undefined };
    store.update(NODE, { ...node, spec }, { name: this.nodeName, fieldManager: NODE_LIFECYCLE_MANAGER });
  }

  /** Registers the node and starts handling pods (existing ones included). */
  start(): void {
    const store = this.#store();
    if (!store.peek(store.def(NODE), undefined, this.nodeName)) {
      store.create(NODE, {
        metadata: {
          name: this.nodeName,
          labels: { "kubernetes.io/hostname": this.nodeName, "kubernetes.io/os": "linux" },
        },
        spec: {},
        status: {
          conditions: [{
            type: "Ready",
            status: "True",
            reason: "KubeletReady",
            message: "fake kubelet is posting ready status",
            lastHeartbeatTime: rfc3339(this.#clock.now()),
            lastTransitionTime: rfc3339(this.#clock.now()),
          }],
          addresses: [{ type: "InternalIP", address: "10.0.0.1" }, { type: "Hostname", address: this.nodeName }],
          capacity: { cpu: "8", memory: "32Gi", pods: "110" },
          allocatable: { cpu: "8", memory: "32Gi", pods: "110" },
          nodeInfo: {
            kubeletVersion: "v1.37.2",
            containerRuntimeVersion: "fake://1.0",
            operatingSystem: "linux",
            architecture: "amd64",
          },
        },
      }, { fieldManager: KUBELET });
      this.#untaintReadyNode();
    }
    this.#unsubscribe = store.objects.onCommit((ev) => this.#observe(ev));
    for (const pod of store.objects.list("/pods")) {
      queueMicrotask(() => this.#sync(pod.metadata.namespace!, pod.metadata.name!));
    }
  }

  /** Stops handling pods and cancels running containers' timers. */
  stop(): void {
    this.#unsubscribe?.();
    for (const run of this.#runs.values()) for (const cancel of run.timers ?? []) cancel();
    this.#runs.clear();
  }

  /** The log text of a container (pods/log). */
  logs(namespace: string, name: string, container: string): string {
    return this.#runs.get(`${namespace}/${name}`)?.logs?.get(container) ?? "";
  }

  #observe(ev: StoredEvent): void {
    if (ev.storageKey !== "/pods") return;
    const { namespace, name } = ev.object.metadata;
    const key = `${namespace}/${name}`;
    if (ev.type === "DELETED") {
      const run = this.#runs.get(key);
      for (const cancel of run?.timers ?? []) cancel();
      this.#runs.delete(key);
      return;
    }
    queueMicrotask(() => this.#sync(namespace!, name!));
  }

  #pod(namespace: string, name: string): KubeObject | undefined {
    const store = this.#store();
    return store.peek(store.def(POD), namespace, name);
  }

  #sync(namespace: string, name: string): void {
    try {
      this.#step(namespace, name);
    } catch {
      // A concurrent writer won (409) or the pod went away: the next commit brings us back.
    }
  }

  #step(namespace: string, name: string): void {
    const pod = this.#pod(namespace, name);
    if (!pod) return;
    const store = this.#store();
    if (pod.metadata.deletionTimestamp) {
      // Graceful deletion: stop the containers, then confirm with grace 0 (the pod goes, finalizers permitting).
      if (pod.spec?.nodeName !== this.nodeName || !((pod.metadata.deletionGracePeriodSeconds ?? 0) > 0)) return;
      for (const cancel of this.#runs.get(`${namespace}/${name}`)?.timers ?? []) cancel();
      this.#runs.delete(`${namespace}/${name}`);
      store.delete(POD, name, { namespace, gracePeriodSeconds: 0 });
      return;
    }
    if (!pod.spec?.nodeName) {
      // Only kube-scheduler (default-scheduler) runs: a pod naming another scheduler stays Pending, unbound.
      if ((pod.spec?.schedulerName ?? DEFAULT_SCHEDULER) !== DEFAULT_SCHEDULER) return;
      const node = store.peek(store.def(NODE), undefined, this.nodeName);
      if (node && !podFitsNode(pod, node)) return; // another node's pod (a DaemonSet's): no scheduler places it here
      const next = copyJson(pod);
      next.spec.nodeName = this.nodeName;
      store.update(POD, next, { namespace, name });
      return;
    }
    if (pod.spec.nodeName !== this.nodeName) return;
    const key = `${namespace}/${name}`;
    if (this.#runs.has(key) && pod.status?.phase === "Running") return this.#startEphemeral(pod);
    if (this.#runs.has(key) || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return;
    const run: PodRun = {};
    this.#runs.set(key, run);
    if (pod.status?.phase === "Running") {
      // Resumed after a restart: keep the pod's IP and statuses, run the containers again from now.
      for (const c of pod.spec.containers ?? []) this.#runContainer(namespace, name, c, run);
      return;
    }
    const now = rfc3339(this.#clock.now());
    const ip = this.#nextIp++;
    const next = copyJson(pod);
    const containers: Json[] = pod.spec.containers ?? [];
    next.status = {
      ...next.status,
      phase: "Running",
      hostIP: "10.0.0.1",
      podIP: `10.244.${(ip >> 8) & 255}.${ip & 255}`,
      podIPs: [{ ip: `10.244.${(ip >> 8) & 255}.${ip & 255}` }],
      startTime: now,
      conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map((type) => ({
        type,
        status: "True",
        lastProbeTime: null,
        lastTransitionTime: now,
      })),
      containerStatuses: containers.map((c) => this.#running(c, 0, now)),
      ...ephemeralStatuses(pod.spec.ephemeralContainers, [], (c) => this.#running(c, 0, now)),
    };
    store.update(POD, next, { namespace, name, subresource: "status", fieldManager: KUBELET });
    for (const c of containers) this.#runContainer(namespace, name, c, run);
  }

  /**
   * Starts the ephemeral containers added to a running pod (`kubectl debug`: the pods/ephemeralcontainers
   * subresource): each gets a running status in status.ephemeralContainerStatuses and runs until the pod ends.
   */
  #startEphemeral(pod: KubeObject): void {
    const have: Json[] = pod.status?.ephemeralContainerStatuses ?? [];
    const now = rfc3339(this.#clock.now());
    const added = ephemeralStatuses(pod.spec?.ephemeralContainers, have, (c) => this.#running(c, 0, now));
    if (!added.ephemeralContainerStatuses) return;
    const next = copyJson(pod);
    next.status = { ...next.status, ...added };
    const { namespace, name } = pod.metadata;
    this.#store().update(POD, next, { namespace, name, subresource: "status", fieldManager: KUBELET });
  }

  #running(c: Json, restartCount: number, startedAt: string, lastState?: unknown): Json {
    return {
      name: c.name,
      image: c.image,
      imageID: `fake://${c.image}`,
      containerID: `fake://${crypto.randomUUID()}`,
      ready: true,
      started: true,
      restartCount,
      state: { running: { startedAt } },
      lastState: lastState ?? {},
    };
  }

  #runContainer(namespace: string, name: string, container: Json, run: PodRun): void {
    const pod = this.#pod(namespace, name);
    if (!pod) return;
    const outcome = this.#opts.behaviour?.(pod, container) ?? interpretCommand(container);
    const startedAt = rfc3339(this.#clock.now());
    if (outcome.log) {
      run.logs = (run.logs ?? new Map()).set(container.name, (run.logs?.get(container.name) ?? "") + outcome.log);
    }
    const runMs = outcome.runMs ?? 0;
    if (runMs === Infinity) return;
    const exit = () => this.#sync2(() => this.#exited(namespace, name, container, outcome, startedAt, run));
    // Zero-length runs finish without waiting for the clock (a VirtualClock would otherwise need an advance).
    if (runMs <= 0) queueMicrotask(exit);
    else (run.timers ??= []).push(this.#clock.setTimer(runMs, exit));
  }

  #sync2(fn: () => void): void {
    try {
      fn();
    } catch { /* see #sync */ }
  }

  #exited(namespace: string, name: string, container: Json, outcome: ContainerOutcome, startedAt: string, run: PodRun) {
    const pod = this.#pod(namespace, name);
    if (!pod || pod.metadata.deletionTimestamp) return;
    const store = this.#store();
    const now = rfc3339(this.#clock.now());
    const terminated = {
      exitCode: outcome.exitCode,
      reason: outcome.exitCode === 0 ? "Completed" : "Error",
      startedAt,
      finishedAt: now,
      containerID: `fake://${crypto.randomUUID()}`,
      ...(outcome.terminationMessage ? { message: outcome.terminationMessage } : {}),
    };
    const policy = pod.spec.restartPolicy ?? "Always";
    const restart = policy === "Always" || (policy === "OnFailure" && outcome.exitCode !== 0);
    const next = copyJson(pod);
    const statuses: Json[] = next.status.containerStatuses ?? [];
    const i = statuses.findIndex((s) => s.name === container.name);
    if (i < 0) return;
    if (restart) {
      const restarts = (run.restarts?.get(container.name) ?? 0) + 1;
      (run.restarts ??= new Map()).set(container.name, restarts);
      const backoffMs = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (restarts - 1));
      statuses[i] = {
        ...statuses[i],
        ready: false,
        started: false,
        restartCount: restarts,
        state: {
          waiting: { reason: "CrashLoopBackOff", message: `back-off ${backoffMs / 1000}s restarting failed container` },
        },
        lastState: { terminated },
      };
      next.status.conditions = readiness(next.status.conditions, "False", now);
      store.update(POD, next, { namespace, name, subresource: "status", fieldManager: KUBELET });
      (run.timers ??= []).push(this.#clock.setTimer(backoffMs, () =>
        this.#sync2(() => {
          const current = this.#pod(namespace, name);
          if (!current) return;
          const again = copyJson(current);
          const j = (again.status.containerStatuses ?? []).findIndex((s: Json) => s.name === container.name);
          if (j < 0) return;
          again.status.containerStatuses[j] = this.#running(container, restarts, rfc3339(this.#clock.now()), {
            terminated,
          });
          again.status.conditions = readiness(again.status.conditions, "True", rfc3339(this.#clock.now()));
          store.update(POD, again, { namespace, name, subresource: "status", fieldManager: KUBELET });
          this.#runContainer(namespace, name, container, run);
        })));
      return;
    }
    statuses[i] = { ...statuses[i], ready: false, started: false, state: { terminated } };
    const all = statuses.every((s) => s.state?.terminated);
    if (all) {
      const failed = statuses.some((s) => s.state.terminated.exitCode !== 0);
      next.status.phase = failed ? "Failed" : "Succeeded";
      next.status.conditions = readiness(next.status.conditions, "False", now, "PodCompleted");
    }
    store.update(POD, next, { namespace, name, subresource: "status", fieldManager: KUBELET });
  }
}

/**
 * `ephemeralContainerStatuses` with a running status (kube's kubelet reports them not ready) for each ephemeral
 * container `have` lacks; empty when none is new.
 */
function ephemeralStatuses(containers: Json[] | undefined, have: Json[], running: (c: Json) => Json): Json {
  const known = new Set(have.map((s) => s.name));
  const fresh = (containers ?? []).filter((c) => !known.has(c.name));
  if (fresh.length === 0) return {};
  return { ephemeralContainerStatuses: [...have, ...fresh.map((c) => ({ ...running(c), ready: false }))] };
}

function readiness(conditions: Json[] | undefined, status: string, now: string, reason?: string): Json[] {
  return (conditions ?? []).map((c) =>
    c.type === "Ready" || c.type === "ContainersReady"
      ? { ...c, status, lastTransitionTime: now, ...(reason ? { reason } : {}) }
      : c
  );
}
