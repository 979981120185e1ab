/**
 * The fake API server's view of a stored object: any kind, rewritten field by field (defaulting, status updates,
 * finalizers, the kubelet) like kube-apiserver's `unstructured.Unstructured`. runtime/'s {@link KubeObject} keeps
 * fields other than apiVersion/kind/metadata `unknown`; inside testing/ the fake reads and writes them directly.
 * Typing each access (runtime/unstructured.ts, runtime/builtin_types.ts) is the way out; until then this loose type
 * stays inside testing/ and is named at each import.
 * @module
 */

import type { KubeObject } from "../../runtime/types.ts";

/** A stored object whose fields the fake reads and writes without declaring them. */
// deno-lint-ignore no-explicit-any
export type Unstructured = KubeObject & { [field: string]: any };
