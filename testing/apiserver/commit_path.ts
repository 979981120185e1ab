/**
 * The fake server's object semantics, synchronous and HTTP-free: create/get/list/update/delete with kube-apiserver's
 * rules (uid, creationTimestamp, generation, generateName, resourceVersion preconditions, status subresource,
 * finalizers + deletionTimestamp, propagation policies, graceful deletion). One commit path serves every resource:
 * what differs per resource is its {@link ResourceStrategy} (testing/apiserver/strategies/), and writes pass the admission
 * chain in kube's order — mutating admission → strategy (prepare, default, validate) → validating admission →
 * storage. The HTTP layer and tests both use it; errors are {@link ApiError}s carrying the Status the server sends.
 * @module
 */
import type { Clock } from "../../runtime/clock.ts";
import { applyFieldValidation } from "./field_validation.ts";
import { decodeBody } from "./commit_decode.ts";
import { alwaysEncodedStructs } from "./go_json_types.ts";
import { ApiError, failureStatus, type StatusCause } from "../../runtime/client/errors.ts";
import { apiVersionOf, type KubeList, type ResourceType } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { type AdmissionChain, type AdmissionContext, runAdmission } from "./admission.ts";
import { defaultAdmissionChain } from "./admission_defaults.ts";
import { deleteObject, type DeleteOptions } from "./commit_delete.ts";
import type { WriteOptions } from "./write_options.ts";
import { listObjects, type ListOptions } from "./list.ts";
import { generateName, jsonEqual, rfc3339 } from "./object_rules.ts";
import { managedFieldsOfWrite } from "./commit_managed_fields.ts";
import { updateTracksManagedFields } from "./patch/managed_fields_writes.ts";
import { addsKeys, dropAdded } from "./patch/fieldset.ts";
import { registryKey, type ResourceRegistry, storageKeyOf } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import { alreadyExists, badRequest, conflict, internalError, invalid, notFound } from "./status_errors.ts";
import type { ObjectStore } from "./object_storage.ts";
import { BUILTIN_STRATEGIES, CUSTOM_RESOURCES } from "./strategies/builtin.ts";
import { withConditionalUpdates } from "./strategies/conditional_updates.ts";
import { statusWrite, withStatusMetadataResets } from "./strategies/status_metadata.ts";
import { withRequiredFields } from "./validation/required_fields.ts";
import { type StrategyContext, StrategyRegistry, updatedGeneration } from "./strategy.ts";
import { fieldImmutable, fieldRequired } from "./validation/field_errors.ts";
import { internalKindDef, servedForm } from "./served_form.ts";
import { validateGenerateName, validateObjectMeta } from "./validation/object_meta.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

export type { AdmissionContext, AdmissionHook } from "./admission.ts";
export { isNamespaceDef } from "./strategies/namespaces.ts";
export { parseRv } from "./list.ts";

/** Addresses a resource: a ResourceType, a ResourceDef, or just group/version/plural. */
export type ResourceRef = Pick<ResourceType, "group" | "version" | "plural">;

export type { ListOptions } from "./list.ts";
export type { DeleteOptions } from "./commit_delete.ts";
export type { WriteOptions } from "./write_options.ts";

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
  /** Per-resource behaviour; `strategies.set("group/plural", strategy)` adds or replaces one. */
  readonly strategies: StrategyRegistry;
  /**
   * The admission chain around the strategy: `mutating` hooks run first (NamespaceLifecycle is the first), then the
   * strategy's defaulting and validation, then the `validating` hooks, then storage.
   */
  readonly admission: AdmissionChain;
  /**
   * Graceful deletion (the strategy's grace period, pods bound to a node: deletionTimestamp + grace; removed when the
   * kubelet deletes them again with grace 0), as kube-apiserver does. Off: every object goes at once (no kubelet to
   * acknowledge).
   */
  gracefulPodDeletion: boolean;
  #nextIp = 10;
  #nextNodePort = 0;

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
    this.strategies = new StrategyRegistry(
      withRequiredFields(withStatusMetadataResets(withConditionalUpdates(BUILTIN_STRATEGIES))),
      CUSTOM_RESOURCES,
    );
    this.admission = defaultAdmissionChain(this.objects);
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

  /** The object as served by `def` (kind/apiVersion set, versions converted); shares nested values with the store. */
  present(def: ResourceDef, obj: KubeObject): KubeObject {
    return servedForm(def, this.strategies.for(def), obj);
  }

  /** A field selector of `def`'s served version in the stored object's field names (watches and lists). */
  storageFieldSelector(def: ResourceDef, selector: string | undefined): string | undefined {
    const conversion = this.strategies.for(def).conversion;
    return conversion ? conversion.fieldSelector(selector) : selector;
  }

  /** GET one object (a deep copy). */
  get(ref: ResourceRef, name: string, opts: { namespace?: string } = {}): KubeObject {
    const def = this.def(ref);
    const obj = this.objects.get(storageKeyOf(def), this.#ns(def, opts.namespace), name);
    if (!obj) throw notFound(def, name);
    return copyJson(this.present(def, obj));
  }

  /** The stored object without copying (internal callers that only read). */
  peek(def: ResourceDef, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(storageKeyOf(def), this.#ns(def, namespace), name);
  }

  /** LIST with selectors, limit/continue and resourceVersion semantics. Items share values with the store. */
  listShared(ref: ResourceRef, opts: ListOptions = {}): KubeList {
    const def = this.def(ref);
    const conversion = this.strategies.for(def).conversion;
    return listObjects(this.objects, def, opts, {
      present: (o) => this.present(def, o),
      fieldSelector: conversion ? (s) => conversion.fieldSelector(s) : (s) => s,
    });
  }

  /** LIST (deep copies). */
  list(ref: ResourceRef, opts: ListOptions = {}): KubeList {
    return copyJson(this.listShared(ref, opts));
  }

  /** CREATE. Returns the stored object (a copy). */
  create(ref: ResourceRef, body: KubeObject, opts: WriteOptions = {}): KubeObject {
    return this.#create(ref, body, opts, false);
  }

  #create(ref: ResourceRef, body: KubeObject, opts: WriteOptions, onUpdate: boolean): KubeObject {
    const def = this.def(ref);
    const strategy = this.strategies.for(def);
    const decoded = decodeBody(this.registry, def, strategy, body, "create");
    let obj = decoded.obj;
    // Built-ins' duplicate and unknown JSON keys fail decoding, before anything else; custom resources' strategy
    // reports them with the unknown fields pruning finds.
    const warnings = opts.warnings ?? [];
    // A PUT that creates applied them already.
    if (!def.custom && !onUpdate) applyFieldValidation({ def, verb: "create", ...opts, warnings }, decoded.unknown);
    let meta = obj.metadata;
    // kube's storage refuses it after validation and admission (500, no reason); a PUT that creates ignores it.
    const sentResourceVersion = onUpdate ? undefined : meta.resourceVersion;
    const namespace = this.#bodyNamespace(def, meta.namespace, opts.namespace, "create");
    const prefix = !meta.name && meta.generateName ? String(meta.generateName) : undefined;
    if (prefix !== undefined) meta.name = (strategy.generateName ?? generateName)(prefix);
    if (def.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    const admission = {
      def,
      verb: "create" as const,
      fieldValidation: opts.fieldValidation,
      warnings,
      dryRun: opts.dryRun,
    };
    // kube's field manager runs before mutating admission, the strategy (PrepareForCreate) and the REST create's
    // allocations (a Service's clusterIPs): what they add belongs to no manager. Copies only when a step added fields.
    const unowned: Array<[KubeObject, KubeObject]> = [];
    const unownedStep = (step: () => void) => {
      const before = opts.fieldManager ? copyJson(obj) : undefined;
      step();
      if (before && addsKeys(before, obj)) unowned.push([before, copyJson(obj)]);
    };
    unownedStep(() => obj = this.#admit("mutating", { ...admission, object: obj }, opts));
    meta = obj.metadata;
    // System fields (kube: FillObjectMetaSystemFields), then the strategy (kube: rest.BeforeCreate).
    obj.apiVersion = strategy.conversion?.storageApiVersion ?? apiVersionOf(def);
    obj.kind = def.kind;
    meta.uid = crypto.randomUUID();
    meta.creationTimestamp = rfc3339(this.clock.now());
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (def.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    const ctx = { ...this.#context(def, "create", opts, warnings), generatedName: prefix !== undefined };
    if (strategy.prepareForCreate) unownedStep(() => strategy.prepareForCreate!(obj, ctx));
    strategy.default?.(obj, ctx);
    // ValidateObjectMeta runs after PrepareForCreate (which names a LimitRange sent without a name); a missing name is
    // one cause among the strategy's (kube: ValidateObjectMeta inside the strategy's Validate).
    const name = String(meta.name ?? "");
    this.#check(def, name, [
      // kube checks a generateName whenever one is sent (also when the name was generated before admission).
      ...(obj.metadata.generateName
        ? validateGenerateName(String(obj.metadata.generateName), (n) => strategy.validateName!(n, obj))
        : []),
      ...(name
        ? strategy.validateName!(name, obj)
        : [fieldRequired("metadata.name", "name or generateName is required")]),
      ...validateObjectMeta(obj.metadata, { builtin: !def.custom }),
      ...(strategy.validate?.(obj, ctx) ?? []),
    ], "create");
    // The storage refuses a duplicate after validation: an invalid one is 422 first.
    const storageKey = storageKeyOf(def);
    if (this.objects.get(storageKey, namespace ?? "", name)) throw alreadyExists(def, name);
    if (strategy.canonicalize) unownedStep(() => strategy.canonicalize!(obj, undefined, ctx));
    obj = this.#admit("validating", { ...admission, object: obj }, opts);
    if (sentResourceVersion) {
      throw internalError("resourceVersion should not be set on objects to be created", "create");
    }
    if (opts.fieldManager) {
      const view = unowned.length > 0 ? copyJson(obj) : obj;
      for (const [before, after] of unowned) dropAdded(view, before, after);
      this.#setManagedFields(def, undefined, view, opts, obj);
    }
    encodeEmptyStructs(def, obj); // after the field manager: an empty struct is no one's field
    strategy.encode?.(obj);
    return this.#persist(def, obj, opts.dryRun, opts.shared);
  }

  /** UPDATE (PUT) of the object or its status subresource. */
  update(ref: ResourceRef, body: KubeObject, opts: WriteOptions = {}): KubeObject {
    const def = this.def(ref);
    const strategy = this.strategies.for(def);
    const verb = "update" as const;
    const { obj, unknown } = decodeBody(this.registry, def, strategy, body, verb);
    if (!def.custom) applyFieldValidation({ def, verb, ...opts, warnings: opts.warnings ?? [] }, unknown);
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
      if (strategy.allowCreateOnUpdate && !opts.subresource) return this.#create(ref, body, opts, true);
      throw notFound(def, name, verb);
    }
    const givenUid = obj.metadata.uid;
    // A patch's result has no uid precondition (kube: ValidateObjectMetaUpdate refuses the change), a PUT's has.
    if (givenUid && givenUid !== old.metadata.uid && opts.patched) {
      throw invalid(def, name, [fieldImmutable("metadata.uid", givenUid)], verb);
    }
    if (givenUid && givenUid !== old.metadata.uid) {
      throw conflict(
        def,
        name,
        verb,
        `StorageError: invalid object, Code: 4, Key: ${
          registryKey(def, namespace, name)
        }, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${givenUid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    const givenRv = obj.metadata.resourceVersion;
    if (givenRv && !/^\d+$/.test(givenRv)) {
      throw internalError(`strconv.ParseUint: parsing ${JSON.stringify(givenRv)}: invalid syntax`, verb);
    }
    if (givenRv && givenRv !== old.metadata.resourceVersion) throw conflict(def, name, verb);
    if (!givenRv && !strategy.allowUnconditionalUpdate) {
      // The store's error names the resource (`gadgets.example.com "x" is invalid`), not the kind.
      throw invalid({ ...def, kind: def.plural }, name, [{
        reason: "FieldValueInvalid",
        message: "Invalid value: 0: must be specified for an update",
        field: "metadata.resourceVersion",
      }], verb);
    }
    let next: KubeObject;
    // A Pod's ephemeralcontainers or resize write: kube's field manager records the body as sent, before the
    // subresource strategy drops what the subresource does not own.
    let sent: KubeObject | undefined;
    if (opts.subresource && opts.subresource !== "status" && strategy.subresourceWrite) {
      sent = { ...copyJson(obj), status: copyJson(old.status) };
    }
    if (opts.subresource) {
      next = opts.subresource === "status"
        ? statusWrite(old, obj, strategy)
        : strategy.subresourceWrite?.(opts.subresource, obj, old) ?? obj;
      // An apply through /status brings the applier's entry (subresource "status"); other writes of a subresource
      // keep the stored entries whatever the body sends (kube's field manager reads a subresource's from the live one).
      if (obj.metadata.managedFields !== undefined && !opts.fieldManager) {
        next.metadata.managedFields = obj.metadata.managedFields;
      }
    } else {
      next = obj;
      next.apiVersion = old.apiVersion;
      next.kind = old.kind;
      if (def.subresources.includes("status")) {
        if (old.status === undefined) delete next.status;
        else next.status = copyJson(old.status);
      }
    }
    const warnings = opts.warnings ?? [];
    const admission = {
      def,
      verb,
      old,
      subresource: opts.subresource,
      fieldValidation: opts.fieldValidation,
      warnings,
      dryRun: opts.dryRun,
    };
    next = this.#admit("mutating", { ...admission, object: next }, opts);
    // System fields an update cannot change, then the strategy (kube: rest.BeforeUpdate).
    const m = next.metadata;
    const o = old.metadata;
    m.namespace = o.namespace;
    m.uid = o.uid;
    m.creationTimestamp = o.creationTimestamp;
    if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
    else delete m.deletionTimestamp;
    if (o.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
    else delete m.deletionGracePeriodSeconds;
    const ctx = this.#context(def, verb, opts, warnings);
    if (def.tracksGeneration) m.generation = updatedGeneration(strategy, def, old, next, ctx);
    else delete m.generation;
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
    strategy.prepareForUpdate?.(next, old, ctx);
    strategy.default?.(next, ctx);
    this.#check(def, name, [
      ...validateObjectMeta(next.metadata, { builtin: !def.custom }),
      ...(strategy.validateUpdate?.(next, old, ctx) ?? []),
    ], verb);
    strategy.canonicalize?.(next, old, ctx);
    next = this.#admit("validating", { ...admission, object: next }, opts);
    // Read before managedFields are recorded into a copy: a finished deletion's removed object keeps what was sent.
    const nm = next.metadata;
    if (opts.fieldManager && updateTracksManagedFields(old, next)) {
      if (sent) strategy.default?.(sent, ctx);
      next = this.#setManagedFields(def, old, sent ?? next, opts, copyJson(next));
    }
    encodeEmptyStructs(def, next);
    strategy.encode?.(next);
    const comparable = { ...next, metadata: { ...next.metadata, resourceVersion: o.resourceVersion } };
    if (jsonEqual(comparable, old)) return copyJson(this.present(def, old));
    if (opts.dryRun) return copyJson(this.present(def, next));
    const graceful = (nm.deletionGracePeriodSeconds ?? 0) > 0;
    const removable = !strategy.terminate || strategy.removeWhenFinalized;
    if (nm.deletionTimestamp && (nm.finalizers ?? []).length === 0 && removable && !graceful) {
      delete nm.finalizers;
      // The DELETED event carries the last stored state (finalizers and all); the answer is the object as updated,
      // under the resourceVersion it was read at (kube answers the object it deleted without storing it).
      this.objects.remove(storageKey, namespace ?? "", name);
      delete next.metadata.finalizers;
      next.metadata.resourceVersion = o.resourceVersion;
      return copyJson(this.present(def, next));
    }
    return this.#persist(def, next, false, opts.shared);
  }

  /** DELETE: marks for deletion when finalizers remain (or a policy adds one), otherwise removes. */
  delete(ref: ResourceRef, name: string, opts: DeleteOptions = {}): KubeObject {
    return this.deleteWithOutcome(ref, name, opts).object;
  }

  /**
   * DELETE, also telling whether the object went at once (`deleted`; on a dry run: would have gone) or stays marked
   * for deletion — kube-apiserver answers the first with a Status unless the resource returns deleted objects.
   */
  deleteWithOutcome(
    ref: ResourceRef,
    name: string,
    opts: DeleteOptions = {},
  ): { object: KubeObject; deleted: boolean } {
    const def = this.def(ref);
    const namespace = this.#ns(def, opts.namespace);
    for (const hook of this.admission.deleting) hook({ def, namespace, name });
    return deleteObject(this, def, namespace, name, opts, (obj, dryRun) => this.#persist(def, obj, dryRun));
  }

  /** Removes an object regardless of finalizers (namespace controller / CRD cleanup). */
  forceRemove(def: ResourceDef, namespace: string, name: string): void {
    this.objects.remove(storageKeyOf(def), namespace, name);
  }

  /** Stores `obj` (unless a dry run) and answers it as served (a copy unless `shared`). */
  #persist(def: ResourceDef, obj: KubeObject, dryRun: boolean | undefined, shared?: boolean): KubeObject {
    if (!dryRun) this.objects.put(storageKeyOf(def), obj);
    return shared ? this.present(def, obj) : copyJson(this.present(def, obj));
  }

  /** Runs one admission phase (the chain's hooks, then the request's own); hooks may replace `ctx.object`. */
  #admit(phase: "mutating" | "validating", ctx: AdmissionContext, opts: WriteOptions): KubeObject {
    runAdmission(this.admission[phase], ctx);
    opts.admission?.[phase]?.(ctx);
    return ctx.object;
  }

  #context(def: ResourceDef, verb: "create" | "update", opts: WriteOptions, warnings: string[]): StrategyContext {
    const { subresource, fieldValidation, strictErrors, user } = opts;
    return {
      ...{ def, verb, subresource, fieldValidation, strictErrors, user, warnings, clock: this.clock },
      duplicateFields: opts.duplicateFields ?? [],
      allocateClusterIp: () => this.#allocateIp(),
      allocateNodePort: () => this.#allocateNodePort(),
    };
  }

  /** Throws 422 Invalid when a strategy reported causes. */
  #check(def: ResourceDef, name: string, causes: StatusCause[] | undefined, verb: string): void {
    if (!causes || causes.length === 0) return;
    throw invalid(internalKindDef(def, this.strategies.for(def)), name, causes, verb);
  }

  /**
   * Sets `into`'s managedFields as they stand after a non-apply write by `opts.fieldManager`; returns `into`. The
   * field manager sees the objects in the request's version (and each other manager's in its entry's version).
   */
  #setManagedFields(def: ResourceDef, old: KubeObject | undefined, next: KubeObject, opts: WriteOptions, into = next) {
    const write = { manager: opts.fieldManager!, nowIso: rfc3339(this.clock.now()), subresource: opts.subresource };
    const entries = managedFieldsOfWrite(this, def, old, next, write);
    if (entries.length > 0) into.metadata.managedFields = entries;
    else delete into.metadata.managedFields;
    return into;
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

  #allocateNodePort(): number {
    const used = new Set<number>();
    for (const svc of this.objects.list("/services")) {
      for (const p of svc.spec?.ports ?? []) if (typeof p?.nodePort === "number") used.add(p.nodePort);
    }
    for (let i = 0; i < 2768; i++) {
      const port = 30000 + ((this.#nextNodePort++) % 2768);
      if (!used.has(port)) return port;
    }
    throw internalError("range is full: no free node port in 30000-32767", "create");
  }

  #allocateIp(): string {
    const n = this.#nextIp++;
    return `10.96.${(n >> 8) & 255}.${n & 255}`;
  }
}

/** A built-in's spec and status structs as Go encodes them: present, `{}` when empty. */
function encodeEmptyStructs(def: ResourceDef, obj: KubeObject): void {
  if (def.custom) return;
  for (const f of alwaysEncodedStructs(def.group, def.version, def.kind)) {
    if (obj[f] === undefined || obj[f] === null) obj[f] = {};
  }
}
