/**
 * JSON patch (RFC 6902), as kube-apiserver applies `application/json-patch+json`: add, remove, replace, move, copy
 * and test, with RFC 6901 pointers (`~0` is `~`, `~1` is `/`, `-` appends to an array). Failures throw a
 * {@link PatchError} whose `reason` says what went wrong; each server maps it to its HTTP answer (kube-apiserver
 * answers a failed `test` with 422 Unprocessable Entity).
 * @module
 */
import { deepEqual, isPlainObject } from "./equality.ts";
import { copyJson } from "./json_copy.ts";

/** Why a JSON patch could not be applied. */
export type PatchErrorReason =
  /** The patch document is not a JSON array of operations. */
  | "NotAList"
  /** An operation lacks `op`, `path`, `from` or `value`, or a pointer is malformed. */
  | "MalformedOperation"
  /** `op` is not one of the six RFC 6902 operations. */
  | "UnknownOperation"
  /** A path does not exist in the document, or an array index is out of range. */
  | "NotApplicable"
  /** A `test` operation did not match (kube-apiserver: 422 Unprocessable Entity). */
  | "TestFailed";

/** The message kube-apiserver sends when a `test` operation fails. */
export const TEST_FAILED_MESSAGE = "the server rejected our request due to an error in our request";

/** A JSON patch that could not be applied; servers map {@link PatchError.reason} to a status code. */
export class PatchError extends Error {
  /** What went wrong. */
  readonly reason: PatchErrorReason;

  /** @param reason what went wrong; @param message details (the path, the index, the operation). */
  constructor(reason: PatchErrorReason, message: string) {
    super(message);
    this.name = "PatchError";
    this.reason = reason;
  }
}

interface Op {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

/**
 * Splits an RFC 6901 pointer into unescaped tokens. As kube's json-patch (evanphx v4) reads one, the text before the
 * first `/` is dropped whatever it is (`data/a` is `/a`); a non-empty pointer without any `/` names nothing.
 */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  const split = pointer.split("/");
  if (split.length < 2) {
    throw new PatchError("NotApplicable", `JSON pointer names no location: ${JSON.stringify(pointer)}`);
  }
  return split.slice(1).map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function arrayIndex(token: string, length: number, forInsert: boolean, path: string): number {
  if (forInsert && token === "-") return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) {
    throw new PatchError("NotApplicable", `invalid array index ${JSON.stringify(token)} in ${path}`);
  }
  const index = Number(token);
  if (index > length || (!forInsert && index === length)) {
    throw new PatchError("NotApplicable", `Unable to access invalid index: ${index}: ${path}`);
  }
  return index;
}

function missing(path: string): PatchError {
  return new PatchError("NotApplicable", `doc is missing path: "${path}": missing value`);
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
      throw missing(path);
    }
  }
  if (!Array.isArray(node) && !isPlainObject(node)) throw missing(path);
  return node;
}

function getAt(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return doc;
  const parent = parentOf(doc, tokens, path);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) return parent[arrayIndex(last, parent.length, false, path)];
  const obj = parent as Record<string, unknown>;
  if (!Object.hasOwn(obj, last)) throw new PatchError("NotApplicable", `doc is missing key: ${path}: missing value`);
  return obj[last];
}

/** Removes and returns the value at `path` (mutates `doc`). */
function removeAt(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw new PatchError("NotApplicable", `unable to remove the whole document`);
  const parent = parentOf(doc, tokens, path);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const index = arrayIndex(last, parent.length, false, path);
    return parent.splice(index, 1)[0];
  }
  const obj = parent as Record<string, unknown>;
  if (!Object.hasOwn(obj, last)) {
    throw new PatchError("NotApplicable", `Unable to remove nonexistent key: ${last}: missing value`);
  }
  const value = obj[last];
  delete obj[last];
  return value;
}

/** Whether `path` names a key its (existing) parent object lacks. */
function isMissingObjectKey(doc: unknown, path: string): boolean {
  try {
    const tokens = parsePointer(path);
    const parent = tokens.length > 0 ? parentOf(doc, tokens, path) : undefined;
    return isPlainObject(parent) && !Object.hasOwn(parent, tokens[tokens.length - 1]);
  } catch {
    return false;
  }
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
  // kube's json-patch (evanphx v4) replaces a missing key of an object as `add` would set it.
  (parent as Record<string, unknown>)[last] = value;
  return doc;
}

function parseOps(ops: unknown): Op[] {
  if (!Array.isArray(ops)) throw new PatchError("NotAList", "json patch must be an array of operations");
  return ops.map((raw, i) => {
    if (!isPlainObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") {
      throw new PatchError("MalformedOperation", `operation ${i}: missing "op" or "path"`);
    }
    if ((raw.op === "move" || raw.op === "copy") && typeof raw.from !== "string") {
      throw new PatchError("MalformedOperation", `operation ${i}: ${raw.op} requires "from"`);
    }
    if ((raw.op === "add" || raw.op === "replace" || raw.op === "test") && !Object.hasOwn(raw, "value")) {
      throw new PatchError("MalformedOperation", `operation ${i}: ${raw.op} requires "value"`);
    }
    return raw as unknown as Op;
  });
}

/**
 * Applies RFC 6902 operations and returns the patched document; `target` is not modified. Throws a
 * {@link PatchError}: `TestFailed` for a failed `test`, `NotApplicable` for a missing path or bad index, and
 * `NotAList`/`MalformedOperation`/`UnknownOperation` for a malformed patch.
 *
 * @example
 * ```ts
 * import { applyJsonPatch } from "./json_patch.ts";
 * const out = applyJsonPatch({ spec: { replicas: 1 } }, [{ op: "replace", path: "/spec/replicas", value: 3 }]);
 * // out is { spec: { replicas: 3 } }
 * ```
 */
export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  const parsed = parseOps(ops);
  let doc = copyJson(target);
  for (const op of parsed) {
    switch (op.op) {
      case "add":
        doc = putAt(doc, op.path, copyJson(op.value), "add");
        break;
      case "remove":
        removeAt(doc, op.path);
        break;
      case "replace":
        doc = putAt(doc, op.path, copyJson(op.value), "replace");
        break;
      case "move": {
        if (op.path.startsWith(`${op.from}/`)) {
          throw new PatchError("NotApplicable", `move operation: "from" is a prefix of "path"`);
        }
        if (op.from === op.path) break;
        const value = removeAt(doc, op.from!);
        doc = putAt(doc, op.path, value, "add");
        break;
      }
      case "copy":
        doc = putAt(doc, op.path, copyJson(getAt(doc, op.from!)), "add");
        break;
      case "test": {
        let actual: unknown;
        try {
          actual = getAt(doc, op.path);
        } catch {
          actual = undefined;
        }
        // kube's json-patch (evanphx v4): a missing key of an existing object tests equal to null.
        if (actual === undefined && op.value === null && isMissingObjectKey(doc, op.path)) break;
        if (!deepEqual(actual, op.value)) throw new PatchError("TestFailed", TEST_FAILED_MESSAGE);
        break;
      }
      default:
        throw new PatchError("UnknownOperation", `Unexpected kind: ${op.op}`);
    }
  }
  return doc;
}
