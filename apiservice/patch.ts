/**
 * The two patch formats a custom resource accepts besides apply: JSON merge patch (RFC 7386) and JSON patch
 * (RFC 6902). Errors are 422 (a test op failed, a path is missing) or 400 (the patch itself is malformed), as
 * ApiErrors so the router can send them as Status.
 * @module
 */
import { ApiError, failureStatus } from "../runtime/errors.ts";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Applies an RFC 7386 merge patch (null deletes a key; arrays replace).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyMergePatch } from "./patch.ts";
 * const out = applyMergePatch({ spec: { weight: 1, height: 2 } }, { spec: { weight: 3 } });
 * assert.ok((out as any).spec.height === 2);
 * ```
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

function invalid(message: string): ApiError {
  return new ApiError(failureStatus(422, "Invalid", message), { verb: "patch" });
}

function bad(message: string): ApiError {
  return new ApiError(failureStatus(400, "BadRequest", message), { verb: "patch" });
}

function parsePointer(path: unknown): string[] {
  if (typeof path !== "string" || (path !== "" && !path.startsWith("/"))) throw bad(`invalid JSON pointer ${path}`);
  return path === "" ? [] : path.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function parent(doc: unknown, tokens: string[], path: string): { container: unknown; key: string } {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined) {
      throw invalid(`the server rejected our request due to an error in our request: ${path} missing`);
    }
  }
  return { container: cur, key: tokens[tokens.length - 1] };
}

function read(doc: unknown, tokens: string[], path: string): unknown {
  if (tokens.length === 0) return doc;
  const { container, key } = parent(doc, tokens, path);
  const v = Array.isArray(container) ? container[Number(key)] : isObject(container) ? container[key] : undefined;
  if (v === undefined) throw invalid(`the server rejected our request due to an error in our request: ${path} missing`);
  return v;
}

function remove(doc: unknown, tokens: string[], path: string): unknown {
  const { container, key } = parent(doc, tokens, path);
  read(doc, tokens, path);
  if (Array.isArray(container)) return container.splice(Number(key), 1)[0];
  const obj = container as Record<string, unknown>;
  const v = obj[key];
  delete obj[key];
  return v;
}

function add(doc: unknown, tokens: string[], value: unknown, path: string): unknown {
  if (tokens.length === 0) return value;
  const { container, key } = parent(doc, tokens, path);
  if (Array.isArray(container)) {
    const i = key === "-" ? container.length : Number(key);
    if (!Number.isInteger(i) || i < 0 || i > container.length) throw invalid(`array index ${key} out of range`);
    container.splice(i, 0, value);
  } else if (isObject(container)) {
    (container as Record<string, unknown>)[key] = value;
  } else {
    throw invalid(`the server rejected our request due to an error in our request: ${path} missing`);
  }
  return doc;
}

/** Applies an RFC 6902 JSON patch (add, remove, replace, move, copy, test) to a copy of `target`. */
export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw bad("json patch must be an array of operations");
  let doc = structuredClone(target);
  for (const op of patch) {
    if (!isObject(op) || typeof op.op !== "string") throw bad(`invalid json patch operation ${JSON.stringify(op)}`);
    const path = String(op.path);
    const tokens = parsePointer(op.path);
    switch (op.op) {
      case "add":
        doc = add(doc, tokens, structuredClone(op.value), path);
        break;
      case "remove":
        remove(doc, tokens, path);
        break;
      case "replace":
        read(doc, tokens, path);
        if (tokens.length === 0) doc = structuredClone(op.value);
        else {
          remove(doc, tokens, path);
          doc = add(doc, tokens, structuredClone(op.value), path);
        }
        break;
      case "move":
      case "copy": {
        const from = String(op.from);
        const fromTokens = parsePointer(op.from);
        const value = op.op === "move" ? remove(doc, fromTokens, from) : structuredClone(read(doc, fromTokens, from));
        doc = add(doc, tokens, value, path);
        break;
      }
      case "test":
        if (JSON.stringify(read(doc, tokens, path)) !== JSON.stringify(op.value)) {
          throw invalid(`the server rejected our request due to an error in our request: test failed at ${path}`);
        }
        break;
      default:
        throw bad(`unknown json patch operation ${JSON.stringify(op.op)}`);
    }
  }
  return doc;
}
