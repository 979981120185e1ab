/**
 * JSON patch (RFC 6902), as kube-apiserver applies `application/json-patch+json`: add, remove, replace, move, copy
 * and test, with RFC 6901 pointers (`~0` is `~`, `~1` is `/`, `-` appends to an array). Failures throw an
 * {@link ApiError} shaped like the real server's answer.
 * @module
 */

import { ApiError, failureStatus } from "../../runtime/errors.ts";
import { isPlainObject } from "./merge.ts";

interface Op {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

/** The parse/apply failures kube-apiserver returns as 500 (`jsonpatch` errors surface as internal errors there). */
function patchFailure(message: string, code = 500): ApiError {
  const reason = code === 422 ? "Invalid" : code === 400 ? "BadRequest" : "InternalError";
  const status = failureStatus(code, reason, message);
  if (code === 500) status.details = { causes: [{ message }] };
  return new ApiError(status, { verb: "patch" });
}

/** Splits an RFC 6901 pointer into unescaped tokens. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw patchFailure(`JSON pointer must start with "/": ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split("/").map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function arrayIndex(token: string, length: number, forInsert: boolean, path: string): number {
  if (forInsert && token === "-") return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw patchFailure(`invalid array index ${JSON.stringify(token)} in ${path}`);
  const index = Number(token);
  if (index > length || (!forInsert && index === length)) {
    throw patchFailure(`Unable to access invalid index: ${index}: ${path}`);
  }
  return index;
}

/** Returns the container holding the last token of `path`. */
function parentOf(doc: unknown, tokens: string[], path: string): unknown {
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) {
      node = node[arrayIndex(token, node.length, false, path)];
    } else if (isPlainObject(node) && Object.hasOwn(node, token)) {
      node = node[token];
    } else {
      throw patchFailure(`doc is missing path: "${path}": missing value`);
    }
  }
  if (!Array.isArray(node) && !isPlainObject(node)) throw patchFailure(`doc is missing path: "${path}": missing value`);
  return node;
}

function getAt(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return doc;
  const parent = parentOf(doc, tokens, path);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) return parent[arrayIndex(last, parent.length, false, path)];
  const obj = parent as Record<string, unknown>;
  if (!Object.hasOwn(obj, last)) throw patchFailure(`doc is missing key: ${path}: missing value`);
  return obj[last];
}

/** Removes and returns the value at `path` (mutates `doc`). */
function removeAt(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw patchFailure(`unable to remove the whole document`);
  const parent = parentOf(doc, tokens, path);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const index = arrayIndex(last, parent.length, false, path);
    return parent.splice(index, 1)[0];
  }
  const obj = parent as Record<string, unknown>;
  if (!Object.hasOwn(obj, last)) throw patchFailure(`Unable to remove nonexistent key: ${last}: missing value`);
  const value = obj[last];
  delete obj[last];
  return value;
}

/** Sets `path` to `value` (mutates `doc` unless the root is replaced); returns the new document. */
function putAt(doc: unknown, path: string, value: unknown, mode: "add" | "replace"): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens, path);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    if (mode === "add") {
      parent.splice(arrayIndex(last, parent.length, true, path), 0, value);
    } else {
      parent[arrayIndex(last, parent.length, false, path)] = value;
    }
    return doc;
  }
  const obj = parent as Record<string, unknown>;
  if (mode === "replace" && !Object.hasOwn(obj, last)) {
    throw patchFailure(`replace operation does not apply: doc is missing key: ${path}: missing value`);
  }
  obj[last] = value;
  return doc;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

function parseOps(ops: unknown): Op[] {
  if (!Array.isArray(ops)) {
    throw patchFailure(
      "the server rejected our request due to an error in our request",
      422,
    );
  }
  return ops.map((raw, i) => {
    if (!isPlainObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") {
      throw patchFailure(`operation ${i}: missing "op" or "path"`, 500);
    }
    if ((raw.op === "move" || raw.op === "copy") && typeof raw.from !== "string") {
      throw patchFailure(`operation ${i}: ${raw.op} requires "from"`, 500);
    }
    if ((raw.op === "add" || raw.op === "replace" || raw.op === "test") && !Object.hasOwn(raw, "value")) {
      throw patchFailure(`operation ${i}: ${raw.op} requires "value"`, 500);
    }
    return raw as unknown as Op;
  });
}

/**
 * Applies RFC 6902 operations and returns the patched document; `target` is not modified. A failed `test` throws
 * 422 Invalid; other failures (missing paths, bad indexes, unknown ops) throw 500 as kube-apiserver does.
 *
 * @example
 * ```ts
 * import { applyJsonPatch } from "./json_patch.ts";
 * const out = applyJsonPatch({ spec: { replicas: 1 } }, [{ op: "replace", path: "/spec/replicas", value: 3 }]);
 * // out is { spec: { replicas: 3 } }
 * ```
 */
export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  let doc = structuredClone(target);
  for (const op of parseOps(ops)) {
    switch (op.op) {
      case "add":
        doc = putAt(doc, op.path, structuredClone(op.value), "add");
        break;
      case "remove":
        removeAt(doc, op.path);
        break;
      case "replace":
        doc = putAt(doc, op.path, structuredClone(op.value), "replace");
        break;
      case "move": {
        if (op.path.startsWith(`${op.from}/`)) throw patchFailure(`move operation: "from" is a prefix of "path"`);
        if (op.from === op.path) break;
        const value = removeAt(doc, op.from!);
        doc = putAt(doc, op.path, value, "add");
        break;
      }
      case "copy":
        doc = putAt(doc, op.path, structuredClone(getAt(doc, op.from!)), "add");
        break;
      case "test": {
        let actual: unknown;
        try {
          actual = getAt(doc, op.path);
        } catch {
          actual = undefined;
        }
        if (!deepEqual(actual, op.value)) {
          throw patchFailure(`the server rejected our request due to an error in our request`, 422);
        }
        break;
      }
      default:
        throw patchFailure(`Unexpected kind: ${op.op}`);
    }
  }
  return doc;
}
