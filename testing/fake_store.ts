/**
 * The fake server's object semantics, synchronous and HTTP-free: create/get/list/update/delete with kube-apiserver's
 * rules (uid, creationTimestamp, generation, generateName, resourceVersion preconditions, status subresource,
 * finalizers + deletionTimestamp, propagation policies, namespace lifecycle). The HTTP layer and tests both use it;
 * errors are {@link ApiError}s carrying the Status the server sends.
 * @module
 */
import type { Clock } from "../runtime/clock.ts";
import type { StatusCause } from "../runtime/errors.ts";
import { apiVersionOf, type KubeList, type KubeObject, type ResourceType } from "../runtime/types.ts";
import { coreToEventsV1, eventsV1FieldSelector, eventsV1ToCore } from "./events_conversion.ts";
import {
  applyCreateDefaults,
  checkUpdate,
  generateName,
  jsonEqual,
  rfc3339,
  specChanged,
  validateName,
} from "./object_rules.ts";
import { type ResourceRegistry, storageKeyOf } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  expired,
  forbidden,
  invalid,
  notFound,
  tooLargeResourceVersion,
} from "./status_errors.ts";
import { type ObjectStore, rvString } from "./store.ts";
import { ApiError, failureStatus } from "../runtime/errors.ts";
import { recordUpdateManagedFields } from "./patch/apply.ts";

/** Addresses a resource: a ResourceType, a ResourceDef, or just group/version/plural. */
export type ResourceRef = Pick<ResourceType, "group" | "version" | "plural">;

/** List options (query parameters of a list call). */
export interface ListOptions {
  /** Namespace to list in; absent: all namespaces. */
  namespace?: string;
  /** Label selector, e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** Field selector, e.g. `metadata.name=x`. */
  fieldSelector?: string;
  /** Page size; the response carries a continue token when more remain. */
  limit?: number;
  /** Continue token from the previous page. */
  continue?: string;
  /** List at (or after) this resourceVersion. */
  resourceVersion?: string;
  /** Exact or NotOlderThan, for `resourceVersion`. */
  resourceVersionMatch?: string;
}

/** Write options. */
export interface WriteOptions {
  /** Namespace of the object. */
  namespace?: string;
  /** The name in the URL (update/status); must match the body. */
  name?: string;
  /** Write the status subresource. */
  subresource?: "status";
  /** Validate and admit, but do not persist. */
  dryRun?: boolean;
  /** Records the write in managedFields under this manager (operation Update). */
  fieldManager?: string;
  /** `fieldValidation` query parameter: Strict, Warn (default over HTTP) or Ignore. */
  fieldValidation?: string;
  /** Collects warnings for `Warning` response headers. */
  warnings?: string[];
}

/** Delete options (DeleteOptions body fields). */
export interface DeleteOptions {
  /** Namespace of the object. */
  namespace?: string;
  /** What happens to dependents. */
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
  /** Delete only if the object still has this uid / resourceVersion. */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Validate, but do not delete. */
  dryRun?: boolean;
  /** DeleteOptions.gracePeriodSeconds (pods: 0 deletes at once). */
  gracePeriodSeconds?: number;
}

/** What an admission hook sees; it may mutate `object` or throw an ApiError. */
export interface AdmissionContext {
  /** The resource written. */
  def: ResourceDef;
  /** The write. */
  verb: "create" | "update";
  /** The object about to be stored; hooks may mutate it. */
  object: KubeObject;
  /** The stored object an update replaces. */
  old?: KubeObject;
  /** The subresource written (status, scale), if any. */
  subresource?: string;
  /** Strict, Warn or Ignore. */
  fieldValidation?: string;
  /** Append texts here to send `Warning: 299 - "..."` headers. */
  warnings: string[];
}

/** A mutating/validating step before a write is committed. */
export type AdmissionHook = (ctx: AdmissionContext) => void;

const FOREGROUND = "foregroundDeletion";
const ORPHAN = "orphan";

/** Resources whose PUT creates a missing object (AllowCreateOnUpdate in kube-apiserver). */
const CREATE_ON_UPDATE = new Set(["coordination.k8s.io/leases", "/events", "/endpoints"]);

/** Object semantics over an {@link ObjectStore}. */
export class FakeStore {
  /**
   * The served resources (built-in kinds and CRDs).
   * @ignore
   */
  readonly registry: ResourceRegistry;
  /**
   * The raw object storage behind the semantics.
   * @ignore
   */
  readonly objects: ObjectStore;
  /** Time source (creation timestamps, graceful deletion). */
  readonly clock: Clock;
  /** Run in order before every create/update commit. */
  readonly admission: AdmissionHook[] = [];
  /**
   * Pods bound to a node are deleted gracefully (deletionTimestamp + grace period; removed when the kubelet deletes
   * them again with grace 0), as kube-apiserver does. Off: every pod goes at once (no kubelet to acknowledge).
   */
  gracefulPodDeletion: boolean;
  #nextIp = 10;

  /**

   * Built by the fake server.

   * @ignore

   */
  constructor(
    opts: { registry: ResourceRegistry; objects: ObjectStore; clock: Clock; gracefulPodDeletion?: boolean },
  ) {
    this.registry = opts.registry;
    this.objects = opts.objects;
    this.clock = opts.clock;
    this.gracefulPodDeletion = opts.gracefulPodDeletion ?? false;
  }

  /** The served definition for a ref, or 404. */
  def(ref: ResourceRef): ResourceDef {
    const def = this.registry.lookup(ref.group, ref.version, ref.plural);
    if (!def) {
      throw new ApiError(failureStatus(404, "NotFound", "the server could not find the requested resource"), {
        verb: "get",
        resource: ref.group ? `${ref.plural}.${ref.group}` : ref.plural,
      });
    }
    return def;
  }

  /** The object as served by `def` (kind/apiVersion set, events converted); shares nested values with the store. */
  present(def: ResourceDef, obj: KubeObject): KubeObject {
    if (def.group === "events.k8s.io") return coreToEventsV1(obj);
    return withType(def, obj);
  }

  /** GET one object (a deep copy). */
  get(ref: ResourceRef, name: string, opts: { namespace?: string } = {}): KubeObject {
    const def = this.def(ref);
    const obj = this.objects.get(storageKeyOf(def), this.#ns(def, opts.namespace), name);
    if (!obj) throw notFound(def, name);
    return structuredClone(this.present(def, obj));
  }

  /** The stored object without copying (internal callers that only read). */
  peek(def: ResourceDef, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(storageKeyOf(def), this.#ns(def, namespace), name);
  }

  /** LIST with selectors, limit/continue and resourceVersion semantics. Items share values with the store. */
  listShared(ref: ResourceRef, opts: ListOptions = {}): KubeList {
    const def = this.def(ref);
    const storageKey = storageKeyOf(def);
    const current = this.objects.rv;
    let listRv = current;
    const rvParam = opts.resourceVersion;
    if (rvParam && rvParam !== "0") {
      const rv = parseRv(rvParam, "list");
      if (rv > current) throw tooLargeResourceVersion(rv, current, "list");
      if (opts.resourceVersionMatch === "Exact") {
        if (rv < this.objects.compactedRv) {
          throw expired(`too old resource version: ${rv} (${this.objects.compactedRv})`, "list");
        }
        listRv = rv;
      }
    }
    let after: { ns: string; name: string } | undefined;
    if (opts.continue) {
      const token = decodeContinue(opts.continue);
      if (token.rv < this.objects.compactedRv) {
        throw expired(
          "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
          "list",
        );
      }
      listRv = token.rv;
      after = { ns: token.ns, name: token.name };
    }
    const labels = compileSelector(() => parseLabelSelector(opts.labelSelector));
    const fieldSel = def.group === "events.k8s.io" ? eventsV1FieldSelector(opts.fieldSelector) : opts.fieldSelector;
    const fields = compileSelector(() => parseFieldSelector(fieldSel, storageKey));
    const namespace = def.namespaced ? opts.namespace || undefined : undefined;
    const items: KubeObject[] = [];
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const filtered = Boolean(opts.labelSelector || opts.fieldSelector);
    let more = false;
    // A continue token or an Exact resourceVersion lists the state at that RV (etcd serves it from its revision).
    const past = listRv < current ? this.objects.iterateAt(storageKey, namespace, listRv, after) : undefined;
    if (past === "expired") throw expired(`too old resource version: ${listRv} (${this.objects.compactedRv})`, "list");
    const iterator = (past ?? this.objects.iterate(storageKey, namespace, after))[Symbol.iterator]();
    for (let step = iterator.next(); !step.done; step = iterator.next()) {
      const obj = step.value;
      if (!labels(obj) || !fields(obj)) continue;
      if (items.length >= limit) {
        more = true;
        break;
      }
      items.push(obj);
    }
    const metadata: KubeList["metadata"] = { resourceVersion: rvString(listRv) };
    if (more) {
      const last = items[items.length - 1].metadata;
      metadata.continue = encodeContinue({ rv: listRv, ns: last.namespace ?? "", name: last.name ?? "" });
      // Objects after the last one returned, at listRv (binary search in the sorted names, not a walk).
      if (!filtered) {
        const at = { ns: last.namespace ?? "", name: last.name ?? "" };
        metadata.remainingItemCount = this.objects.countAfter(storageKey, namespace, at, past ? listRv : undefined);
      }
    }
    const asListed = def.group === "events.k8s.io" ? items.map(coreToEventsV1) : items.map((o) => withType(def, o));
    return { apiVersion: apiVersionOf(def), kind: def.listKind, metadata, items: asListed };
  }

  /** LIST (deep copies). */
  list(ref: ResourceRef, opts: ListOptions = {}): KubeList {
    return structuredClone(this.listShared(ref, opts));
  }

  /** CREATE. Returns the stored object (a copy). */
  create(ref: ResourceRef, body: KubeObject, opts: WriteOptions = {}): KubeObject {
    const def = this.def(ref);
    let obj = structuredClone(body) as KubeObject;
    if (!obj || typeof obj !== "object" || Array.isArray(obj)) {
      throw badRequest("the request body must be a JSON object", "create");
    }
    if (def.group === "events.k8s.io") obj = eventsV1ToCore(obj);
    obj.metadata = obj.metadata && typeof obj.metadata === "object" ? obj.metadata : {};
    const meta = obj.metadata;
    const namespace = this.#bodyNamespace(def, meta.namespace, opts.namespace, "create");
    if (!meta.name && meta.generateName) meta.name = generateName(String(meta.generateName));
    if (!meta.name) {
      throw invalid(def, "", [{
        reason: "FieldValueRequired",
        message: "Required value: name or generateName is required",
        field: "metadata.name",
      }]);
    }
    const nameCauses = validateName(def, String(meta.name));
    if (nameCauses.length) throw invalid(def, String(meta.name), nameCauses);
    if (def.namespaced) {
      meta.namespace = namespace;
      this.#checkNamespaceOpen(def, namespace!, meta.name);
    } else delete meta.namespace;
    const storageKey = storageKeyOf(def);
    if (this.objects.get(storageKey, namespace ?? "", meta.name)) throw alreadyExists(def, meta.name);
    obj.apiVersion = def.group === "events.k8s.io" ? "v1" : apiVersionOf(def);
    obj.kind = def.kind;
    meta.uid = crypto.randomUUID();
    meta.creationTimestamp = rfc3339(this.clock.now());
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (def.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    if (def.custom && def.subresources.includes("status")) delete obj.status;
    applyCreateDefaults(def, obj, () => this.#allocateIp());
    const warnings = opts.warnings ?? [];
    for (const hook of this.admission) {
      hook({ def, verb: "create", object: obj, fieldValidation: opts.fieldValidation, warnings });
    }
    if (opts.fieldManager) obj = this.#record(def, undefined, obj, opts);
    if (opts.dryRun) return structuredClone(this.present(def, obj));
    this.objects.put(storageKey, obj);
    return structuredClone(this.present(def, obj));
  }

  /** UPDATE (PUT) of the object or its status subresource. */
  update(ref: ResourceRef, body: KubeObject, opts: WriteOptions = {}): KubeObject {
    const def = this.def(ref);
    const verb = "update";
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      throw badRequest("the request body must be a JSON object", verb);
    }
    let obj = structuredClone(body) as KubeObject;
    if (def.group === "events.k8s.io") obj = eventsV1ToCore(obj);
    obj.metadata = obj.metadata && typeof obj.metadata === "object" ? obj.metadata : {};
    const name = opts.name ?? obj.metadata.name;
    if (!name) throw badRequest("name is required in the object metadata", verb);
    if (obj.metadata.name && obj.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
        verb,
      );
    }
    obj.metadata.name = name;
    const namespace = this.#bodyNamespace(def, obj.metadata.namespace, opts.namespace, verb);
    const storageKey = storageKeyOf(def);
    const old = this.objects.get(storageKey, namespace ?? "", name);
    if (!old) {
      if (CREATE_ON_UPDATE.has(storageKey) && !opts.subresource) return this.create(ref, body, opts);
      throw notFound(def, name, verb);
    }
    const givenRv = obj.metadata.resourceVersion;
    if (givenRv && givenRv !== old.metadata.resourceVersion) throw conflict(def, name, verb);
    if (!givenRv && def.custom) {
      throw invalid(def, name, [{
        reason: "FieldValueInvalid",
        message: "Invalid value: 0x0: must be specified for an update",
        field: "metadata.resourceVersion",
      }], verb);
    }
    let next: KubeObject;
    if (opts.subresource === "status") {
      next = structuredClone(old);
      next.status = obj.status;
      if (obj.metadata.labels !== undefined) next.metadata.labels = obj.metadata.labels;
      if (obj.metadata.annotations !== undefined) next.metadata.annotations = obj.metadata.annotations;
    } else {
      next = obj;
      next.apiVersion = old.apiVersion;
      next.kind = old.kind;
      if (def.subresources.includes("status") || (def.group === "" && def.plural === "namespaces")) {
        if (old.status === undefined) delete next.status;
        else next.status = structuredClone(old.status);
      }
    }
    const m = next.metadata;
    const o = old.metadata;
    m.namespace = o.namespace;
    m.uid = o.uid;
    m.creationTimestamp = o.creationTimestamp;
    if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
    else delete m.deletionTimestamp;
    if (o.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
    else delete m.deletionGracePeriodSeconds;
    if (def.tracksGeneration) {
      m.generation = (o.generation ?? 1) + (opts.subresource !== "status" && specChanged(old, next) ? 1 : 0);
    } else delete m.generation;
    if (m.managedFields === undefined && o.managedFields !== undefined) m.managedFields = o.managedFields;
    if (o.deletionTimestamp) {
      const added = (m.finalizers ?? []).filter((f) => !(o.finalizers ?? []).includes(f));
      if (added.length) {
        throw invalid(def, name, [{
          reason: "FieldValueForbidden",
          message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${
            JSON.stringify(added)
          }`,
          field: "metadata.finalizers",
        }], verb);
      }
    }
    const causes: StatusCause[] = checkUpdate(def, old, next);
    if (causes.length) throw invalid(def, name, causes, verb);
    const warnings = opts.warnings ?? [];
    for (const hook of this.admission) {
      hook({
        def,
        verb,
        object: next,
        old,
        subresource: opts.subresource,
        fieldValidation: opts.fieldValidation,
        warnings,
      });
    }
    if (opts.fieldManager) next = this.#record(def, old, next, opts);
    const comparable = { ...next, metadata: { ...next.metadata, resourceVersion: o.resourceVersion } };
    if (jsonEqual(comparable, old)) return structuredClone(this.present(def, old));
    if (opts.dryRun) return structuredClone(this.present(def, next));
    const graceful = (m.deletionGracePeriodSeconds ?? 0) > 0;
    if (m.deletionTimestamp && (m.finalizers ?? []).length === 0 && !isNamespaceDef(def) && !graceful) {
      delete m.finalizers;
      const ev = this.objects.remove(storageKey, namespace ?? "", name, next)!;
      return structuredClone(this.present(def, ev.object));
    }
    this.objects.put(storageKey, next);
    return structuredClone(this.present(def, next));
  }

  /** DELETE: marks for deletion when finalizers remain (or a policy adds one), otherwise removes. */
  delete(ref: ResourceRef, name: string, opts: DeleteOptions = {}): KubeObject {
    const def = this.def(ref);
    const namespace = this.#ns(def, opts.namespace);
    const storageKey = storageKeyOf(def);
    const old = this.objects.get(storageKey, namespace, name);
    if (!old) throw notFound(def, name, "delete");
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== old.metadata.uid) {
      throw conflict(
        def,
        name,
        "delete",
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(
        def,
        name,
        "delete",
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
      );
    }
    const next = structuredClone(old);
    const finalizers = new Set(next.metadata.finalizers ?? []);
    if (opts.propagationPolicy === "Foreground" && this.objects.dependentsOf(old.metadata.uid!).length > 0) {
      finalizers.add(FOREGROUND);
    }
    if (opts.propagationPolicy === "Orphan" && this.objects.dependentsOf(old.metadata.uid!).length > 0) {
      finalizers.add(ORPHAN);
    }
    if (isNamespaceDef(def)) {
      if (old.metadata.deletionTimestamp) return structuredClone(this.present(def, old));
      next.metadata.deletionTimestamp = rfc3339(this.clock.now());
      next.metadata.deletionGracePeriodSeconds = 0;
      next.status = { ...next.status, phase: "Terminating" };
      if (opts.dryRun) return structuredClone(this.present(def, next));
      this.objects.put(storageKey, next);
      return structuredClone(this.present(def, next));
    }
    if (finalizers.size > 0) {
      const changedFinalizers = finalizers.size !== (old.metadata.finalizers ?? []).length;
      if (old.metadata.deletionTimestamp && !changedFinalizers) return structuredClone(this.present(def, old));
      next.metadata.finalizers = [...finalizers];
      if (!old.metadata.deletionTimestamp) {
        next.metadata.deletionTimestamp = rfc3339(this.clock.now());
        next.metadata.deletionGracePeriodSeconds = 0;
        if (def.tracksGeneration) next.metadata.generation = (old.metadata.generation ?? 1) + 1;
      }
      if (opts.dryRun) return structuredClone(this.present(def, next));
      this.objects.put(storageKey, next);
      return structuredClone(this.present(def, next));
    }
    const grace = this.#podGrace(def, old, opts.gracePeriodSeconds);
    if (grace > 0) {
      const prior = old.metadata.deletionGracePeriodSeconds;
      // A later delete may only shorten a pending grace period.
      if (old.metadata.deletionTimestamp && prior !== undefined && prior <= grace) {
        return structuredClone(this.present(def, old));
      }
      next.metadata.deletionTimestamp = rfc3339(this.clock.now() + grace * 1000);
      next.metadata.deletionGracePeriodSeconds = grace;
      if (opts.dryRun) return structuredClone(this.present(def, next));
      this.objects.put(storageKey, next);
      return structuredClone(this.present(def, next));
    }
    if (opts.dryRun) return structuredClone(this.present(def, old));
    if (!next.metadata.deletionTimestamp || (next.metadata.deletionGracePeriodSeconds ?? 0) > 0) {
      next.metadata.deletionTimestamp = rfc3339(this.clock.now());
      next.metadata.deletionGracePeriodSeconds = 0;
    }
    const ev = this.objects.remove(storageKey, namespace, name, next)!;
    return structuredClone(this.present(def, ev.object));
  }

  /** The grace period a pod deletion waits for (0: at once), as the pod strategy's CheckGracefulDelete decides. */
  #podGrace(def: ResourceDef, pod: KubeObject, requested: number | undefined): number {
    if (!this.gracefulPodDeletion || def.group !== "" || def.plural !== "pods") return 0;
    if (!pod.spec?.nodeName || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return 0;
    const grace = requested ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    return Number.isFinite(grace) && grace > 0 ? Math.floor(grace) : 0;
  }

  /** Removes an object regardless of finalizers (namespace controller / CRD cleanup). */
  forceRemove(def: ResourceDef, namespace: string, name: string): void {
    this.objects.remove(storageKeyOf(def), namespace, name);
  }

  #record(def: ResourceDef, old: KubeObject | undefined, next: KubeObject, opts: WriteOptions): KubeObject {
    const out = recordUpdateManagedFields(old, next, opts.fieldManager!, rfc3339(this.clock.now()), "Update", {
      subresource: opts.subresource,
      statusSubresource: def.subresources.includes("status"),
      def,
    });
    if (Array.isArray(out.metadata.managedFields) && out.metadata.managedFields.length === 0) {
      delete out.metadata.managedFields;
    }
    return out;
  }

  #ns(def: ResourceDef, namespace: string | undefined): string {
    return def.namespaced ? namespace ?? "" : "";
  }

  #bodyNamespace(def: ResourceDef, bodyNs: unknown, urlNs: string | undefined, verb: string): string | undefined {
    if (!def.namespaced) return undefined;
    const ns = typeof bodyNs === "string" && bodyNs ? bodyNs : undefined;
    if (urlNs && ns && urlNs !== ns) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request", verb);
    }
    const out = urlNs || ns;
    if (!out) throw badRequest("the server could not find the requested resource: namespace is required", verb);
    return out;
  }

  #checkNamespaceOpen(def: ResourceDef, namespace: string, name: string): void {
    const ns = this.objects.get("/namespaces", "", namespace);
    if (!ns) {
      throw new ApiError(
        failureStatus(404, "NotFound", `namespaces "${namespace}" not found`, { name: namespace, kind: "namespaces" }),
        { verb: "create", resource: "namespaces", name: namespace },
      );
    }
    if (ns.metadata.deletionTimestamp) {
      throw forbidden(
        def,
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        "create",
      );
    }
  }

  #allocateIp(): string {
    const n = this.#nextIp++;
    return `10.96.${(n >> 8) & 255}.${n & 255}`;
  }
}

/** A shallow copy with the definition's apiVersion and kind (first keys when new). */
function withType(def: ResourceDef, obj: KubeObject): KubeObject {
  const out: KubeObject = { apiVersion: apiVersionOf(def), kind: def.kind, ...obj };
  out.apiVersion = apiVersionOf(def);
  out.kind = def.kind;
  return out;
}

/** True for the core namespaces resource. */
export function isNamespaceDef(def: Pick<ResourceDef, "group" | "plural">): boolean {
  return def.group === "" && def.plural === "namespaces";
}

function compileSelector<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message, "list");
    throw err;
  }
}

/** Parses a resourceVersion query value, 400 when not a number. */
export function parseRv(value: string, verb: string): number {
  if (!/^\d+$/.test(value)) throw badRequest(`invalid resource version: ${JSON.stringify(value)}`, verb);
  return Number(value);
}

interface ContinueToken {
  rv: number;
  ns: string;
  name: string;
}

function encodeContinue(token: ContinueToken): string {
  return btoa(JSON.stringify({ v: 1, ...token })).replace(/=+$/, "");
}

function decodeContinue(value: string): ContinueToken {
  try {
    const t = JSON.parse(atob(value.replace(/-/g, "+").replace(/_/g, "/")));
    if (typeof t.rv === "number" && typeof t.ns === "string" && typeof t.name === "string") return t;
  } catch { /* fall through */ }
  throw badRequest(
    "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    "list",
  );
}
