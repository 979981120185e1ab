/**
 * Per-resource write behaviour of the fake API server, as kube-apiserver's registry strategies
 * (k8s.io/apiserver pkg/registry/rest: RESTCreateStrategy, RESTUpdateStrategy, RESTGracefulDeleteStrategy): the one
 * commit path in fake_store.ts calls these hooks and knows no resource by name. Built-in strategies live in
 * testing/apiserver/strategies/, one file per resource family; {@link StrategyRegistry} maps a resource to its strategy.
 * @module
 */
import type { Clock } from "../../runtime/clock.ts";
import type { StatusCause } from "../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { specChanged, validateSubdomainName } from "./object_rules.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { UserInfo } from "./user_info.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/**
 * The subresources whose writes go through the commit path as the object itself: `status`, and a Pod's
 * `ephemeralcontainers` and `resize` (kube: the pod strategy wrapped to change only what the subresource owns).
 */
export type WrittenSubresource = "status" | "ephemeralcontainers" | "resize";

/** The {@link WrittenSubresource} `sub` names, if it is one. */
export function writtenSubresource(sub: string | undefined): WrittenSubresource | undefined {
  return sub === "status" || sub === "ephemeralcontainers" || sub === "resize" ? sub : undefined;
}

/** What a strategy hook sees besides the object: the resource, the request and the store's services. */
export interface StrategyContext {
  /** The resource written. */
  def: ResourceDef;
  /** The write. */
  verb: "create" | "update";
  /** The subresource written: "status", or a Pod's "ephemeralcontainers" or "resize". */
  subresource?: WrittenSubresource;
  /** `fieldValidation` query parameter: Strict, Warn or Ignore. */
  fieldValidation?: string;
  /** Keys the JSON body held twice (`spec.a`); strict field validation reports them before unknown fields. */
  duplicateFields?: string[];
  /**
   * A JSON body's strict decoding errors in document order (`duplicate field "a"`, `unknown field "b"`: a built-in's,
   * found by the HTTP layer, which dropped the unknown fields); they replace {@link duplicateFields}' messages.
   */
  strictErrors?: string[];
  /** Append texts here to send `Warning: 299 - "..."` headers. */
  warnings: string[];
  /** The authenticated user of the request (kube: `genericapirequest.UserFrom(ctx)`); absent for in-process writers. */
  user?: UserInfo;
  /** A create whose name metadata.generateName made (kube makes it after decoding: its defaults saw no name). */
  generatedName?: boolean;
  /** The store's clock (timestamps, grace periods). */
  clock: Clock;
  /** The next free Service cluster IP (10.96.x.y). */
  allocateClusterIp(): string;
  /** The next free Service node port (30000-32767). */
  allocateNodePort(): number;
}

/**
 * A served version whose objects are stored in another version's form (kube: the storage version and the codec's
 * conversion); events.k8s.io/v1 Events are stored as core v1 Events. Also how the stored form is presented.
 */
export interface StorageConversion {
  /** apiVersion of the stored form. */
  storageApiVersion: string;
  /** A request body (served version) → the stored form. */
  toStorage(obj: KubeObject): KubeObject;
  /** The stored form → the served version (a shallow copy). */
  fromStorage(obj: KubeObject): KubeObject;
  /** A field selector in the served version's field names → the stored names. */
  fieldSelector(selector: string | undefined): string | undefined;
}

/**
 * Per-resource hooks of the commit path; every member is optional and {@link DEFAULT_STRATEGY} fills the gaps. Hooks
 * that return causes make the write fail with 422 Invalid; a hook may also throw an ApiError (e.g. 400 for strict
 * field validation).
 *
 * Create: validateName → mutating admission → prepareForCreate → default → validate → canonicalize → validating
 * admission → field manager → encode → storage. Update: prepareForUpdate → default → validateUpdate → canonicalize
 * (between mutating and validating admission, as on create), then field manager → encode.
 *
 * @example
 * ```ts
 * import type { ResourceStrategy } from "./strategy.ts";
 * // Widgets: PUT creates a missing one; spec.size may not shrink.
 * const widgets: ResourceStrategy = {
 *   allowCreateOnUpdate: true,
 *   validateUpdate: (next, old) =>
 *     (next.spec?.size ?? 0) < (old.spec?.size ?? 0)
 *       ? [{ reason: "FieldValueInvalid", message: "Invalid value: may not shrink", field: "spec.size" }]
 *       : [],
 * };
 * console.assert(widgets.allowCreateOnUpdate === true);
 * ```
 */
export interface ResourceStrategy {
  /**
   * Causes for a bad metadata.name (kube: the kind's name validation in ValidateObjectMeta), given the object being
   * created (after defaulting) for kinds whose name follows from it (a CRD's `<plural>.<group>`).
   */
  validateName?(name: string, obj?: KubeObject): StatusCause[];
  /**
   * The name a create with only `generateName` gets (kube: the strategy's NameGenerator); unset: the prefix and five
   * random characters. IPAddresses keep the prefix as it is (their names are addresses).
   */
  generateName?(prefix: string): string;
  /** Set when the served version is stored in another form (see {@link StorageConversion}). */
  conversion?: StorageConversion;
  /**
   * The codec's error for a body the typed decoder cannot read (a Secret's data not base64, a Lease's MicroTime not
   * RFC 3339 with microseconds): the request is answered 400 BadRequest with it. Sees the request body as sent.
   */
  decodeError?(body: KubeObject): string | undefined;
  /**
   * Whether DELETE answers with the deleted object (kube: the store's ReturnDeletedObject — pods, services,
   * namespaces, serviceaccounts, ...) rather than a `Status` of kind Success when the object went at once.
   */
  returnDeletedObject?: boolean;
  /**
   * What a DELETE that names no propagation policy does to dependents (kube: DefaultGarbageCollectionPolicy):
   * "Orphan" for batch/v1 Jobs and v1 ReplicationControllers, which then get the `orphan` finalizer; otherwise
   * dependents are deleted in the background.
   */
  defaultPropagationPolicy?: "Orphan";
  /**
   * A warning a DELETE or deletecollection that names no propagation policy (nor orphanDependents) answers with
   * (kube's Job REST: its pods are orphaned by default).
   */
  defaultPropagationWarning?: string;
  /**
   * Whether PUT of a missing object creates it (kube: the strategy's AllowCreateOnUpdate — events, endpoints, leases,
   * services, limitranges, RBAC roles and bindings, runtimeclasses).
   */
  allowCreateOnUpdate?: boolean;
  /**
   * The metadata a write of the status subresource may not change: kube's status strategy puts the stored values back
   * in PrepareForUpdate (deployments: labels; {@link RESET_OBJECT_META_FOR_STATUS} where it calls
   * metav1.ResetObjectMetaForStatus). Unset: a status write may change labels and annotations, and its writer owns
   * them (managedFields entry with `subresource: status`).
   */
  statusKeepsMetadata?: ReadonlyArray<StatusWritableMeta>;
  /** Whether an update without metadata.resourceVersion is accepted (false for custom resources: 422). */
  allowUnconditionalUpdate?: boolean;
  /**
   * Whether an update from `old` to `next` (both defaulted and encoded) bumps a generation-tracking kind's
   * metadata.generation; unset: when anything outside metadata and status changed. EndpointSlices count their labels
   * too (kube's endpointSliceStrategy.PrepareForUpdate).
   */
  generationChanged?(next: KubeObject, old: KubeObject): boolean;
  /** Normalises a new object: clears what users may not set, fills the kind's create-time defaults. */
  prepareForCreate?(obj: KubeObject, ctx: StrategyContext): void;
  /**
   * A write of one of the kind's own subresources (a Pod's `ephemeralcontainers`, `resize`): `old` with what the
   * subresource owns taken from `body` (kube: the subresource strategy's PrepareForUpdate drops every other change).
   */
  subresourceWrite?(sub: WrittenSubresource, body: KubeObject, old: KubeObject): KubeObject;
  /** Carries over from `old` what an update may not change (server-owned fields). */
  prepareForUpdate?(next: KubeObject, old: KubeObject, ctx: StrategyContext): void;
  /**
   * The object as kube's decoder leaves it, which an update compares with the stored one to decide whether
   * metadata.generation moves (custom resources: pruned and defaulted from the schema). Without it: a copy with
   * {@link default} applied. Must not change `obj`.
   */
  decoded?(obj: KubeObject, ctx: StrategyContext): KubeObject;
  /** Defaulting applied on every create and update (kube: SetDefaults_<Kind> at decode). */
  default?(obj: KubeObject, ctx: StrategyContext): void;
  /**
   * Field errors of a new object. Custom resources prune, default and validate against the structural schema in one
   * pass here, so this may replace fields of `obj`.
   */
  validate?(obj: KubeObject, ctx: StrategyContext): StatusCause[];
  /** Field errors of an update (immutability, transitions); as {@link validate} it may rewrite custom resources. */
  validateUpdate?(next: KubeObject, old: KubeObject, ctx: StrategyContext): StatusCause[];
  /**
   * Go's encoding of the object about to be stored: fields no one set that kube-apiserver answers anyway
   * (non-omitempty zero values such as an Event's `eventTime: null`, empty lists as `null`). Runs after the field
   * manager, so no manager owns them, on every create and update.
   */
  encode?(obj: KubeObject): void;
  /** After validation succeeded, before storage: server-computed fields (a CRD's status). `old` on updates. */
  canonicalize?(obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): void;
  /**
   * Set for resources whose REST delete checks the uid and resourceVersion preconditions itself (namespaces:
   * "Precondition failed", CRDs: "precondition failed"): a failed one is a Conflict on the resource
   * (`namespaces "x"`) whose reason starts with this text, then `UID in precondition: a, UID in object meta: b`.
   */
  deletePreconditionsFailed?: string;
  /**
   * Seconds a delete without finalizers waits before the object goes (0: at once), given the request's
   * DeleteOptions.gracePeriodSeconds. Consulted only when the store's graceful deletion is on (something — the
   * kubelet — acknowledges the deletion by deleting again with grace 0).
   */
  gracePeriodSeconds?(obj: KubeObject, requestedSeconds: number | undefined): number;
  /**
   * Set for resources whose deletion their own controller completes (namespaces, CRDs): a delete marks the object
   * (deletionTimestamp, then this hook, given the time) and it stays until that controller removes it — or, with
   * {@link removeWhenFinalized}, until an update leaves it without finalizers.
   */
  terminate?(obj: KubeObject, nowMs: number): void;
  /**
   * With {@link terminate}: an update that leaves a marked object without finalizers removes it, as for any other
   * resource (CRDs; not namespaces, whose spec.finalizers must go too: their controller removes them).
   */
  removeWhenFinalized?: boolean;
}

/** The metadata fields a status write may change unless the kind's status strategy resets them. */
export type StatusWritableMeta = "labels" | "annotations";

/** What metav1.ResetObjectMetaForStatus resets of the metadata a status write could change (labels, annotations). */
export const RESET_OBJECT_META_FOR_STATUS: ReadonlyArray<StatusWritableMeta> = Object.freeze(["labels", "annotations"]);

/** The generic behaviour: DNS-1123 subdomain names, no create on update, unconditional updates, no grace period. */
export const DEFAULT_STRATEGY: Readonly<ResourceStrategy> = Object.freeze({
  validateName: validateSubdomainName,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  gracePeriodSeconds: () => 0,
});

/**
 * The metadata.generation an update of a generation-tracking kind stores: the stored one, plus 1 when the write (not
 * of the status subresource) changes the object — compared as kube does, after defaulting (kube defaults while
 * decoding) and encoding (a zero value Go serialises equals the field left out), by the strategy's
 * {@link ResourceStrategy.generationChanged} or else anything outside metadata and status (a custom resource without
 * a status subresource: status too).
 */
export function updatedGeneration(
  strategy: ResourceStrategy,
  def: Pick<ResourceDef, "custom" | "subresources">,
  old: KubeObject,
  next: KubeObject,
  ctx: StrategyContext,
): number {
  const stored = old.metadata.generation ?? 1;
  if (ctx.subresource === "status") return stored;
  const statusIsSpec = def.custom && !def.subresources.includes("status");
  // Compared as kube does, after defaulting (kube defaults while decoding; a custom resource is also pruned): a PUT
  // leaving out defaulted fields changes nothing.
  let compared: KubeObject;
  if (strategy.decoded) compared = strategy.decoded(next, ctx);
  else {
    compared = strategy.default || strategy.encode ? copyJson(next) : next;
    strategy.default?.(compared, ctx);
  }
  if (strategy.encode && compared === next) compared = copyJson(next);
  strategy.encode?.(compared);
  const changed = strategy.generationChanged?.(compared, old) ?? specChanged(old, compared, statusIsSpec);
  return stored + (changed ? 1 : 0);
}

/** `group/plural` (the group-resource, any version): how the registry keys strategies. */
export function groupResourceOf(def: Pick<ResourceDef, "group" | "plural">): string {
  return `${def.group}/${def.plural}`;
}

/**
 * `group/version/plural`: how the registry keys what one served version of a group-resource adds to its strategy
 * (autoscaling/v1 HorizontalPodAutoscalers: their conversion to the stored autoscaling/v2 form).
 */
export function groupVersionResourceOf(def: Pick<ResourceDef, "group" | "version" | "plural">): string {
  return `${def.group}/${def.version}/${def.plural}`;
}

/**
 * Maps resources to strategies: an entry per group-resource, else the custom-resource strategy for CRD-defined
 * resources, else {@link DEFAULT_STRATEGY}; an entry per group-version-resource ({@link groupVersionResourceOf}) is
 * merged over its group-resource's (a served version's conversion). Lookups return the entries merged over the
 * default (cached).
 *
 * @example
 * ```ts
 * import { StrategyRegistry } from "./strategy.ts";
 * const registry = new StrategyRegistry([["example.com/widgets", { allowCreateOnUpdate: true }]], {});
 * const widgets = { group: "example.com", version: "v1", plural: "widgets", custom: false };
 * console.assert(registry.for(widgets).allowCreateOnUpdate === true);
 * ```
 */
export class StrategyRegistry {
  #entries: Map<string, ResourceStrategy>;
  #custom: ResourceStrategy;
  #resolved = new Map<string, ResourceStrategy>();

  /** Strategies by `group/plural` (`entries`), and `custom` for every resource a CRD defines. */
  constructor(entries: Iterable<[groupResource: string, strategy: ResourceStrategy]>, custom: ResourceStrategy) {
    this.#entries = new Map(entries);
    this.#custom = custom;
  }

  /**
   * Adds or replaces the strategy of a group-resource (`"apps/deployments"`, `"/pods"`), or what one served version
   * adds to it (`"autoscaling/v1/horizontalpodautoscalers"`).
   */
  set(groupResource: string, strategy: ResourceStrategy): void {
    this.#entries.set(groupResource, strategy);
    this.#resolved.clear();
  }

  /** The strategy of a resource, merged over {@link DEFAULT_STRATEGY}. */
  for(def: Pick<ResourceDef, "group" | "version" | "plural" | "custom">): ResourceStrategy {
    const key = `${def.custom ? "custom:" : ""}${groupVersionResourceOf(def)}`;
    let out = this.#resolved.get(key);
    if (!out) {
      const own = this.#entries.get(groupResourceOf(def)) ?? (def.custom ? this.#custom : {});
      const version = def.custom ? undefined : this.#entries.get(groupVersionResourceOf(def));
      out = { ...DEFAULT_STRATEGY, ...own, ...version };
      this.#resolved.set(key, out);
    }
    return out;
  }
}
