/**
 * LIST semantics of the fake server over an {@link ObjectStore}: label and field selectors, limit/continue (opaque
 * tokens that pin the list's resourceVersion), remainingItemCount, and resourceVersion / resourceVersionMatch (Exact
 * lists the past state, as etcd serves a revision; 410 Expired once compacted).
 * @module
 */
import {
  matchesShardSelector,
  type ShardSelector,
  shardSelectorString,
} from "../../runtime/apimachinery/shard_selector.ts";
import { apiVersionOf, type KubeList } from "../../runtime/types.ts";
import { goJsonSyntaxError } from "./go_json_syntax.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { storageKeyOf } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import { parseFieldSelector as parseFieldTerms } from "../../runtime/apimachinery/field_selector.ts";
import { compareStrings } from "../../runtime/apimachinery/string_order.ts";
import {
  firstKindField,
  hasKindFields,
  indexedFieldSelector,
  parseFieldSelector,
  parseLabelSelector,
  SelectorError,
} from "./selectors.ts";
import { badRequest, expired, internalError, tooLargeResourceVersion } from "./status_errors.ts";
import { type ObjectStore, rvString } from "./object_storage.ts";
import type { StoredRecord } from "./stored_record.ts";

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
  /**
   * KEP-5866: only objects whose field hash is in the selector's ranges; the list echoes the selector in
   * `metadata.shardInfo.selector` (the caller passes it only when the ShardedListAndWatch gate is on).
   */
  shardSelector?: ShardSelector;
}

/** How a list presents the stored objects of `def`: the served form and field names (see StorageConversion). */
export interface ListPresentation {
  /** Stored object → as served (shares nested values with the store). */
  present(obj: KubeObject): KubeObject;
  /** A field selector in served names → stored names. */
  fieldSelector(selector: string | undefined): string | undefined;
}

/** kube's 410 for a list at a resourceVersion etcd has compacted (an Exact list, a limit with a resourceVersion). */
const LIST_TOO_OLD = "The resourceVersion for the provided list is too old.";

/** The records a list selected, with the list's metadata (what {@link listObjects} and a raw JSON answer share). */
export interface SelectedRecords {
  metadata: KubeList["metadata"];
  records: StoredRecord[];
}

/** LIST of `def` (items share values with the store). */
export function listObjects(
  objects: ObjectStore,
  def: ResourceDef,
  opts: ListOptions,
  presentation: ListPresentation,
): KubeList {
  const { metadata, records } = selectRecords(objects, def, opts, presentation);
  const items = records.map((r) => presentation.present(r.parsed ?? r.parse()));
  return { apiVersion: apiVersionOf(def), kind: def.listKind, metadata, items };
}

/**
 * The records a LIST of `def` answers with, in order, and the list's metadata. Label selectors, shard selectors and
 * field selectors on `metadata.name`/`metadata.namespace` are decided on the records' index fields; other field
 * selectors parse each candidate.
 */
export function selectRecords(
  objects: ObjectStore,
  def: ResourceDef,
  opts: ListOptions,
  presentation: Pick<ListPresentation, "fieldSelector">,
): SelectedRecords {
  const storageKey = storageKeyOf(def);
  const current = objects.rv;
  let listRv = current;
  const rvParam = opts.resourceVersion;
  if (rvParam && rvParam !== "0") {
    const rv = parseRv(rvParam, "list");
    if (rv > current) throw tooLargeResourceVersion(rv, current, "list");
    if (opts.resourceVersionMatch === "Exact") {
      if (rv < objects.compactedRv) {
        throw expired(LIST_TOO_OLD, "list");
      }
      listRv = rv;
    }
  }
  let after: { ns: string; name: string } | undefined;
  if (opts.continue) {
    const token = decodeContinue(opts.continue);
    if (token.rv < objects.compactedRv) {
      throw expired(
        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
        "list",
      );
    }
    listRv = token.rv;
    after = { ns: token.ns, name: token.name };
  }
  const labels = compileSelector(() => parseLabelSelector(opts.labelSelector));
  const fieldSel = presentation.fieldSelector(opts.fieldSelector);
  const fields = compileSelector(() => parseFieldSelector(fieldSel, storageKey, def.selectableFields, def.custom));
  // Decided on the records' index unless a field is not indexed (a CRD's selectableFields) or a record predates it.
  const indexed = indexedFieldSelector(fieldSel, storageKey);
  const kindFields = hasKindFields(storageKey);
  const namespace = def.namespaced ? opts.namespace || undefined : undefined;
  const records: StoredRecord[] = [];
  const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
  const shard = opts.shardSelector;
  // remainingItemCount is only given for an empty predicate (storage.PrepareContinueToken): a shard selector counts.
  const filtered = Boolean(opts.labelSelector || opts.fieldSelector || shard);
  let more = false;
  // A continue token or an Exact resourceVersion lists the state at that RV (etcd serves it from its revision).
  const past = listRv < current ? objects.iterateRecordsAt(storageKey, namespace, listRv, after) : undefined;
  if (past === "expired") throw expired(LIST_TOO_OLD, "list");
  // What the selectors read of a record without parsing it (one holder, refilled per record).
  const meta: { name: string; namespace: string; uid?: string; labels?: Readonly<Record<string, string>> } = {
    name: "",
    namespace: "",
  };
  const held = { metadata: meta } as unknown as KubeObject;
  for (
    const record of past ?? byFirstField(objects, storageKey, namespace, fieldSel, after) ??
      objects.iterateRecords(storageKey, namespace, after)
  ) {
    if (filtered) {
      meta.name = record.name;
      meta.namespace = record.namespace;
      meta.uid = record.uid;
      meta.labels = record.labels;
      if (!labels(held) || (shard && !matchesShardSelector(shard, held))) continue;
      const onIndex = indexed && (record.fields || !kindFields);
      if (!(onIndex ? indexed(record) : fields(record.parsed ?? record.parse()))) continue;
    }
    if (records.length >= limit) {
      more = true;
      break;
    }
    records.push(record);
  }
  const metadata: KubeList["metadata"] = { resourceVersion: rvString(listRv) };
  if (more) {
    const last = records[records.length - 1];
    metadata.continue = encodeContinue({ rv: listRv, ns: last.namespace, name: last.name });
    // Objects after the last one returned, at listRv (binary search in the sorted names, not a walk).
    if (!filtered) {
      const at = { ns: last.namespace, name: last.name };
      metadata.remainingItemCount = objects.countAfter(storageKey, namespace, at, past ? listRv : undefined);
    }
  }
  // kube-apiserver v1.37.2 filters a custom resource's list by the shard selector too, but its unstructured list
  // carries no `metadata.shardInfo` echo (clients then filter client-side, which is a no-op on a filtered list).
  if (shard && !def.custom) metadata.shardInfo = { selector: shardSelectorString(shard) };
  return { metadata, records };
}

/**
 * A first page whose field selector pins the kind's indexed field (`spec.nodeName=node-7`): that value's records in
 * list order, the other selectors still to apply; undefined when the index cannot answer.
 */
function byFirstField(
  objects: ObjectStore,
  storageKey: string,
  namespace: string | undefined,
  selector: string | undefined,
  after: unknown,
): StoredRecord[] | undefined {
  const field = firstKindField(storageKey);
  if (!field || !selector || after) return undefined;
  let terms;
  try {
    terms = parseFieldTerms(selector);
  } catch {
    return undefined;
  }
  const pinned = terms.find((t) => t.field === field && t.op === "=");
  const records = pinned && objects.withFirstField(storageKey, pinned.value);
  if (!records) return undefined;
  const out = [...records].filter((r) => namespace === undefined || r.namespace === namespace);
  return out.sort((a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name));
}

function compileSelector<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message, "list");
    throw err;
  }
}

/**
 * Parses a resourceVersion query value as kube's storage does (strconv.ParseUint): not a number or past uint64 is 400
 * for a list, a reason-less 500 for a get or watch, in kube's words.
 */
export function parseRv(value: string, verb: string): number {
  const why = !/^\d+$/.test(value) ? "invalid syntax" : BigInt(value) >= 2n ** 64n ? "value out of range" : undefined;
  if (why) {
    const q = JSON.stringify(value);
    const invalid = `resourceVersion: Invalid value: ${q}: strconv.ParseUint: parsing ${q}: ${why}`;
    // A list wraps the storage's parse error in a 400; a get or watch passes it through as a reason-less 500.
    throw verb === "list" ? badRequest(`invalid resource version: ${invalid}`, verb) : internalError(invalid, verb);
  }
  return Number(value);
}

interface ContinueToken {
  rv: number;
  ns: string;
  name: string;
}

function encodeContinue(token: ContinueToken): string {
  return btoa(JSON.stringify({ v: 1, ...token })).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

/** base64.RawURLEncoding.DecodeString: the bytes, or Go's error (`illegal base64 data at input byte 3`). */
function rawUrlBase64(value: string): Uint8Array | string {
  const bad = value.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0) return `illegal base64 data at input byte ${bad}`;
  if (value.length % 4 === 1) return `illegal base64 data at input byte ${value.length - 1}`;
  const std = value.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(std + "=".repeat((4 - (std.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

/** A continue token, or kube's 400 in its storage's words (`invalid continue token: continue key is not valid: …`). */
function decodeContinue(value: string): ContinueToken {
  const invalidToken = (why: string) => badRequest(`invalid continue token: continue key is not valid: ${why}`, "list");
  const bytes = rawUrlBase64(value);
  if (typeof bytes === "string") throw invalidToken(bytes);
  const syntax = goJsonSyntaxError(bytes);
  if (syntax) throw invalidToken(syntax);
  const t = JSON.parse(new TextDecoder().decode(bytes));
  if (t && typeof t.rv === "number" && typeof t.ns === "string" && typeof t.name === "string") return t;
  throw invalidToken("incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
}
