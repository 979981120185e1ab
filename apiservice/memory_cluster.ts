/**
 * An in-memory {@link FarmCluster} for tests and local development: ConfigMaps with resourceVersion preconditions,
 * a scriptable SubjectAccessReview (`authorize`), static bearer tokens, and a Pod cache fed by `putPod`/`deletePod`.
 * Everything it records (`reviews`) is there for assertions.
 * @module
 */
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import type {
  AccessAttributes,
  AccessDecision,
  ConfigMapObject,
  FarmCluster,
  PodCache,
  PodObject,
  SecretObject,
  TokenDecision,
  UserInfo,
} from "./cluster.ts";

type PodHandler = Parameters<PodCache["addHandler"]>[0];

/** A Pod cache held in memory. */
export class MemoryPodCache implements PodCache {
  #pods = new Map<string, PodObject>();
  #handlers = new Set<PodHandler>();
  /** Reported by hasSynced(). */
  synced = true;
  /** Reported by lastError(). */
  error: string | undefined;

  get(key: string): PodObject | undefined {
    const pod = this.#pods.get(key);
    return pod && structuredClone(pod);
  }

  /** Objects of one namespace, or all. */
  list(namespace?: string): PodObject[] {
    return [...this.#pods.values()].filter((p) => namespace === undefined || p.metadata.namespace === namespace)
      .map((p) => structuredClone(p));
  }

  /** True once the first full list is stored. */
  hasSynced(): boolean {
    return this.synced;
  }

  lastError(): string | undefined {
    return this.error;
  }

  addHandler(h: PodHandler): () => void {
    this.#handlers.add(h);
    return () => this.#handlers.delete(h);
  }

  /** Adds or replaces a pod and notifies handlers. */
  put(pod: PodObject): void {
    const k = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const old = this.#pods.get(k);
    this.#pods.set(k, structuredClone(pod));
    for (const h of this.#handlers) old ? h.modified?.(old, pod) : h.added?.(pod);
  }

  /** Removes a pod and notifies handlers. */
  delete(namespace: string, name: string): void {
    const k = `${namespace}/${name}`;
    const old = this.#pods.get(k);
    if (!old) return;
    this.#pods.delete(k);
    for (const h of this.#handlers) h.deleted?.(old);
  }
}

/** The non-resource paths kube's default RBAC lets system:unauthenticated read (system:public-info-viewer). */
const PUBLIC_INFO_PATHS = new Set(["/healthz", "/livez", "/readyz", "/version", "/version/"]);

/**
 * The default test policy: every authenticated user may do anything; system:unauthenticated gets what kube's default
 * RBAC gives it — `get` on /healthz, /livez, /readyz and /version (system:public-info-viewer), nothing else.
 */
function kubeDefaultPolicy(user: UserInfo, attrs: AccessAttributes): boolean {
  if (!user.groups.includes("system:unauthenticated")) return true;
  return attrs.verb === "get" && attrs.path !== undefined && PUBLIC_INFO_PATHS.has(attrs.path);
}

/**
 * In-memory cluster; without `authorize`, authenticated users may do anything and anonymous ones what kube's default
 * RBAC allows them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryFarmCluster } from "./memory_cluster.ts";
 * const cluster = new MemoryFarmCluster({ authorize: (user) => user.username === "alice" });
 * const d = await cluster.subjectAccessReview({ username: "bob", groups: [] }, { verb: "get" });
 * assert.ok(!d.allowed);
 * ```
 */
export class MemoryFarmCluster implements FarmCluster {
  /** Decides one request (cached SubjectAccessReview). */
  authorize: (user: UserInfo, attrs: AccessAttributes) => boolean;
  /** Valid bearer tokens and their users. */
  tokens: Map<string, UserInfo>;
  readonly pods = new MemoryPodCache();
  /** Every SubjectAccessReview asked, in order. */
  readonly reviews: Array<{ user: UserInfo; attrs: AccessAttributes }> = [];
  #configMaps = new Map<string, ConfigMapObject>();
  #secrets = new Map<string, SecretObject>();
  /** APIService name → spec.caBundle, as set through {@link setAPIServiceCABundle}. */
  readonly caBundles = new Map<string, string>();
  #rv = 0;
  /** When set, every ConfigMap call fails with this HTTP code (fault injection). */
  failConfigMaps: number | undefined;

  /** Creates the instance from its options. */
  constructor(
    opts: { authorize?: (user: UserInfo, attrs: AccessAttributes) => boolean; tokens?: Record<string, UserInfo> } = {},
  ) {
    this.authorize = opts.authorize ?? kubeDefaultPolicy;
    this.tokens = new Map(Object.entries(opts.tokens ?? {}));
  }

  /** Asks the cluster whether `user` may do `attrs`. */
  subjectAccessReview(user: UserInfo, attrs: AccessAttributes): Promise<AccessDecision> {
    this.reviews.push({ user, attrs });
    const allowed = this.authorize(user, attrs);
    return Promise.resolve({ allowed, reason: allowed ? "allowed by test policy" : "denied by test policy" });
  }

  tokenReview(token: string): Promise<TokenDecision> {
    const user = this.tokens.get(token);
    return Promise.resolve(user ? { authenticated: true, user } : { authenticated: false });
  }

  #check(verb: string, namespace: string, name: string): void {
    if (this.failConfigMaps) {
      throw new ApiError(failureStatus(this.failConfigMaps, "InternalError", "injected failure"), {
        verb,
        resource: "configmaps",
        namespace,
        name,
      });
    }
  }

  /** Stores a copy of `obj` under `key` with the next resourceVersion; returns another copy. */
  #store<T extends ConfigMapObject | SecretObject>(map: Map<string, T>, key: string, obj: T): T {
    const stored = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++this.#rv) } };
    map.set(key, stored);
    if (map === this.#configMaps) { for (const w of [...this.#configMapWatchers]) if (w.key === key) w.onChange(); }
    return structuredClone(stored);
  }

  #configMapWatchers = new Set<{ key: string; onChange: () => void }>();

  /** Calls `onChange` after every write of the ConfigMap, until `signal` aborts. */
  watchConfigMap(namespace: string, name: string, onChange: () => void, signal: AbortSignal): Promise<void> {
    const watcher = { key: `${namespace}/${name}`, onChange: () => queueMicrotask(onChange) };
    this.#configMapWatchers.add(watcher);
    return new Promise((resolve) => {
      const stop = () => {
        this.#configMapWatchers.delete(watcher);
        resolve();
      };
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    });
  }

  getConfigMap(namespace: string, name: string): Promise<ConfigMapObject | undefined> {
    this.#check("get", namespace, name);
    const cm = this.#configMaps.get(`${namespace}/${name}`);
    return Promise.resolve(cm && structuredClone(cm));
  }

  createConfigMap(cm: ConfigMapObject): Promise<ConfigMapObject> {
    const { namespace = "default", name = "" } = cm.metadata;
    this.#check("create", namespace, name);
    const k = `${namespace}/${name}`;
    if (this.#configMaps.has(k)) {
      throw new ApiError(failureStatus(409, "AlreadyExists", `configmaps "${name}" already exists`), {
        verb: "create",
        resource: "configmaps",
        namespace,
        name,
      });
    }
    return Promise.resolve(this.#store(this.#configMaps, k, cm));
  }

  updateConfigMap(cm: ConfigMapObject): Promise<ConfigMapObject> {
    const { namespace = "default", name = "" } = cm.metadata;
    this.#check("update", namespace, name);
    const k = `${namespace}/${name}`;
    const current = this.#configMaps.get(k);
    if (!current) {
      throw new ApiError(failureStatus(404, "NotFound", `configmaps "${name}" not found`), {
        verb: "update",
        resource: "configmaps",
        namespace,
        name,
      });
    }
    if (cm.metadata.resourceVersion && cm.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw new ApiError(failureStatus(409, "Conflict", `Operation cannot be fulfilled on configmaps "${name}"`), {
        verb: "update",
        resource: "configmaps",
        namespace,
        name,
      });
    }
    return Promise.resolve(this.#store(this.#configMaps, k, cm));
  }

  getSecret(namespace: string, name: string): Promise<SecretObject | undefined> {
    const secret = this.#secrets.get(`${namespace}/${name}`);
    return Promise.resolve(secret && structuredClone(secret));
  }

  createSecret(secret: SecretObject): Promise<SecretObject> {
    const { namespace = "default", name = "" } = secret.metadata;
    if (this.#secrets.has(`${namespace}/${name}`)) {
      throw new ApiError(failureStatus(409, "AlreadyExists", `secrets "${name}" already exists`), {
        verb: "create",
        resource: "secrets",
        namespace,
        name,
      });
    }
    return Promise.resolve(this.#store(this.#secrets, `${namespace}/${name}`, secret));
  }

  updateSecret(secret: SecretObject): Promise<SecretObject> {
    const { namespace = "default", name = "" } = secret.metadata;
    const current = this.#secrets.get(`${namespace}/${name}`);
    if (!current || current.metadata.resourceVersion !== secret.metadata.resourceVersion) {
      throw new ApiError(failureStatus(409, "Conflict", `Operation cannot be fulfilled on secrets "${name}"`), {
        verb: "update",
        resource: "secrets",
        namespace,
        name,
      });
    }
    return Promise.resolve(this.#store(this.#secrets, `${namespace}/${name}`, secret));
  }

  setAPIServiceCABundle(name: string, caBundle: string): Promise<boolean> {
    const changed = this.caBundles.get(name) !== caBundle;
    this.caBundles.set(name, caBundle);
    return Promise.resolve(changed);
  }
}
