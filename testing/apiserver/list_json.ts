/**
 * A LIST answered from the stored JSON: the list's head, then each selected record's text as stored, streamed in
 * chunks. No object is parsed or serialised again (a 100 000-Pod list is ~340 MB of JSON; built whole it would be one
 * string that size), and the bytes are what `JSON.stringify` of the parsed list gives, apart from non-ASCII characters
 * that the store keeps as `\uXXXX` escapes. A built-in's items carry no `apiVersion`/`kind` (kube's typed lists leave
 * their items' TypeMeta empty: the stored text's first two members are cut), a custom resource's keep theirs. An
 * object stored without its kind's `apiVersion`/`kind` first is parsed and presented instead.
 * @module
 */
import { apiVersionOf } from "../../runtime/types.ts";
import { typedListItem, unstructuredListMeta } from "./http_negotiation.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { SelectedRecords } from "./list.ts";
import type { StoredRecord } from "./stored_record.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

/** Records per chunk of the streamed body. */
const RECORDS_PER_CHUNK = 256;

/**
 * The JSON answer (200) to a LIST whose items are `selected`'s records as `def` serves them; `present` turns a parsed
 * object into its served form (used only for records stored without the served `apiVersion`/`kind` in front).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listJsonResponse } from "./list_json.ts";
 * import { StoredRecord } from "./stored_record.ts";
 * import type { ResourceDef } from "./resource_def.ts";
 * const def = { group: "", version: "v1", kind: "ConfigMap", listKind: "ConfigMapList" } as ResourceDef;
 * const json = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}';
 * const record = new StoredRecord(json, "", "a", undefined, undefined, undefined);
 * const res = listJsonResponse(def, { metadata: { resourceVersion: "7" }, records: [record] }, (o) => o);
 * assert.deepEqual(await res.json(), {
 *   apiVersion: "v1",
 *   kind: "ConfigMapList",
 *   metadata: { resourceVersion: "7" },
 *   items: [{ metadata: { name: "a" } }], // a built-in's items: no apiVersion/kind
 * });
 * ```
 */
export function listJsonResponse(
  def: ResourceDef,
  selected: SelectedRecords,
  present: (obj: KubeObject) => KubeObject,
): Response {
  const apiVersion = JSON.stringify(apiVersionOf(def));
  const head = `{"apiVersion":${apiVersion},"kind":${JSON.stringify(def.listKind)},"metadata":${
    JSON.stringify(unstructuredListMeta(def, selected.metadata))
  },"items":[`;
  const served = `{"apiVersion":${apiVersion},"kind":${JSON.stringify(def.kind)},`;
  const typed = (text: string) => def.custom ? text : `{${text.slice(served.length)}`;
  const itemJson = (r: StoredRecord) =>
    r.json.startsWith(served) ? typed(r.json) : JSON.stringify(typedListItem(def, present(r.parsed ?? r.parse())));
  const { records } = selected;
  const headers = { "content-type": "application/json" };
  const chunk = (from: number) => records.slice(from, from + RECORDS_PER_CHUNK).map(itemJson).join(",");
  if (records.length <= RECORDS_PER_CHUNK) return new Response(`${head}${chunk(0)}]}`, { status: 200, headers });
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next >= records.length) {
        controller.enqueue(encoder.encode("]}"));
        controller.close();
        return;
      }
      const text = (next === 0 ? head : ",") + chunk(next);
      next += RECORDS_PER_CHUNK;
      controller.enqueue(encoder.encode(text));
    },
  });
  return new Response(body, { status: 200, headers });
}
