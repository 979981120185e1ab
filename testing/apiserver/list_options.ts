/**
 * ListOptions as kube-apiserver decodes and validates them for list, watch and deletecollection
 * (apimachinery metainternalversion: the query conversion, then `ValidateListOptions` with the WatchList feature on):
 * a non-integer `limit`/`timeoutSeconds` is 400 BadRequest with strconv's wording; a refused combination of
 * `resourceVersionMatch`, `resourceVersion`, `continue` and `sendInitialEvents` is 422 Invalid on
 * `ListOptions.meta.k8s.io ""` with one cause per rule.
 * @module
 */
import { parseShardSelector, type ShardSelector } from "../../runtime/apimachinery/shard_selector.ts";
import type { StatusCause } from "../../runtime/client/errors.ts";
import { badRequest, internalError, invalid } from "./status_errors.ts";

/** The query parameters of a list or watch, decoded like apimachinery's `Convert_Slice_string_To_*`. */
export interface ListQuery {
  watch: boolean;
  resourceVersion: string;
  resourceVersionMatch: string;
  continue: string;
  /** Undefined when absent (a pointer upstream). */
  sendInitialEvents?: boolean;
  allowWatchBookmarks: boolean;
  limit?: number;
  timeoutSeconds?: number;
}

const LIST_OPTIONS = { group: "meta.k8s.io", kind: "ListOptions", plural: "listoptions" };

/** apimachinery's bool conversion: absent, "false" (any case) and "0" are false; anything else, "" included, true. */
export function queryBool(values: string[]): boolean {
  if (values.length === 0) return false;
  return !(values[0] === "0" || values[0].toLowerCase() === "false");
}

function queryInt(q: URLSearchParams, name: string, verb: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  // strconv.ParseInt(v, 10, 64): an optional sign and decimal digits.
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`, verb);
  return Number(v);
}

/**
 * Decodes and validates the list/watch query; throws the ApiError kube-apiserver answers before it reads storage.
 * `watch` is the request's verb being watch (the `watch` parameter or the legacy `/watch/` path).
 *
 * @example
 * ```ts
 * import { parseListQuery } from "./list_options.ts";
 * const opts = parseListQuery(new URLSearchParams("watch=1&resourceVersion=5"), true);
 * console.assert(opts.watch && opts.resourceVersion === "5");
 * ```
 */
export function parseListQuery(
  q: URLSearchParams,
  watch: boolean,
  verb = watch ? "watch" : "list",
): ListQuery {
  const timeoutSeconds = queryInt(q, "timeoutSeconds", verb);
  const limit = queryInt(q, "limit", verb);
  const opts: ListQuery = {
    watch,
    resourceVersion: q.get("resourceVersion") ?? "",
    resourceVersionMatch: q.get("resourceVersionMatch") ?? "",
    continue: q.get("continue") ?? "",
    sendInitialEvents: q.has("sendInitialEvents") ? queryBool(q.getAll("sendInitialEvents")) : undefined,
    allowWatchBookmarks: queryBool(q.getAll("allowWatchBookmarks")),
    limit,
    timeoutSeconds,
  };
  const causes = listOptionCauses(opts);
  if (causes.length > 0) throw invalid(LIST_OPTIONS, "", causes, verb);
  return opts;
}

const forbidden = (field: string, detail: string): StatusCause => ({
  reason: "FieldValueForbidden",
  message: `Forbidden: ${detail}`,
  field,
});

const notSupported = (field: string, value: string, supported: string[]): StatusCause => ({
  reason: "FieldValueNotSupported",
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${
    supported.map((s) => JSON.stringify(s)).join(", ")
  }`,
  field,
});

/** `ValidateListOptions` (metainternalversion/validation) with the WatchList feature enabled. */
function listOptionCauses(o: ListQuery): StatusCause[] {
  const causes: StatusCause[] = [];
  const match = o.resourceVersionMatch;
  if (o.watch) {
    if (o.sendInitialEvents !== undefined && match !== "NotOlderThan") {
      causes.push(
        forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
      );
    }
    if (match) {
      if (o.sendInitialEvents === undefined) {
        causes.push(
          forbidden(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
          ),
        );
      }
      if (match !== "NotOlderThan") causes.push(notSupported("resourceVersionMatch", match, ["NotOlderThan"]));
      if (o.continue) {
        causes.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
      }
    }
    return causes;
  }
  if (match) {
    if (!o.resourceVersion) {
      causes.push(
        forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"),
      );
    }
    if (o.continue) {
      causes.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
    }
    if (match !== "Exact" && match !== "NotOlderThan") {
      causes.push(notSupported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]));
    }
    if (match === "Exact" && o.resourceVersion === "0") {
      causes.push(
        forbidden("resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
      );
    }
  }
  if (o.sendInitialEvents !== undefined) {
    causes.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  }
  return causes;
}

/**
 * The `shardSelector` of a list, watch or deletecollection (KEP-5866) as kube-apiserver v1.37's generic registry
 * reads it: ignored unless the `ShardedListAndWatch` gate is on, ignored when empty, and otherwise parsed; a selector
 * that does not parse is a plain Go error there (`invalid shard selector: …`), which the handlers answer as 500 with
 * no reason.
 *
 * @example
 * ```ts
 * import { shardSelectorParam } from "./list_options.ts";
 * const q = new URLSearchParams({ shardSelector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')" });
 * shardSelectorParam(q, false, "list"); // undefined: gate off, the parameter is ignored
 * shardSelectorParam(q, true, "list")?.ranges.length; // 1
 * ```
 */
export function shardSelectorParam(q: URLSearchParams, enabled: boolean, verb: string): ShardSelector | undefined {
  if (!enabled) return undefined;
  const raw = q.get("shardSelector");
  if (!raw) return undefined;
  try {
    return parseShardSelector(raw);
  } catch (err) {
    throw internalError(`invalid shard selector: ${err instanceof Error ? err.message : String(err)}`, verb);
  }
}
