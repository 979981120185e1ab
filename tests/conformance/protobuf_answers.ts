/**
 * Conformance cases: protobuf answers beyond built-in objects — PartialObjectMetadata(List) asked for in protobuf (the
 * garbage collector's metadata informers: lists, gets and watches, of built-ins and custom resources) and a custom
 * resource's Status errors (kube's CR handler negotiates them like any handler, so they are protobuf though the CR
 * itself never is). Runs after the crd topic (the Widget CRD).
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { decodeKubernetesProtobuf } from "../../testing/apiserver/protobuf.ts";
import { type ConformanceCase, Widget } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const PROTOBUF = "application/vnd.kubernetes.protobuf";
const partial = (kind: string) =>
  `${PROTOBUF};as=${kind};g=meta.k8s.io;v=v1, application/json;as=${kind};g=meta.k8s.io;v=v1, application/json`;
const widgets = (ns: string) => `/apis/${Widget.group}/${Widget.version}/namespaces/${ns}/widgets`;

async function get(client: KubeClient, path: string, accept: string) {
  const res = await client.request("GET", path, { accept });
  return { code: res.status, type: res.headers.get("content-type") ?? "", body: res.body };
}

/** A varint at `at`: its value and the index after it. */
function varint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let shift = 0;; shift += 7) {
    const byte = b[at++];
    v += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [v, at];
  }
}

/** The first frame of a protobuf watch: its event type and decoded object. */
function firstWatchEvent(stream: Uint8Array): { type: string; object: Any } {
  const length = new DataView(stream.buffer, stream.byteOffset).getUint32(0);
  const event = stream.subarray(4, 4 + length);
  let type = "";
  let object: Any;
  for (let at = 0; at < event.length;) {
    const [tag, afterTag] = varint(event, at);
    const [size, start] = varint(event, afterTag);
    const value = event.subarray(start, start + size);
    if (tag === 0x0a) type = new TextDecoder().decode(value);
    if (tag === 0x12) { // RawExtension{raw = 1}
      const [, rawStart] = varint(value, 1);
      object = decodeKubernetesProtobuf(value.subarray(rawStart));
    }
    at = start + size;
  }
  return { type, object };
}

/** PartialObjectMetadata in protobuf; custom resources' Status errors in protobuf. */
export const protobufAnswerCases: ConformanceCase[] = [
  {
    name: "protobuf PartialObjectMetadataList and PartialObjectMetadata of ConfigMaps and Widgets; a 404 stays JSON",
    async run({ client, noRetry, ns }) {
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "pb-meta", namespace: ns, labels: { pb: "meta" } },
        data: { secret: "not-in-metadata" },
      }, { namespace: ns });
      await client.create<KubeObject>(Widget, {
        apiVersion: `${Widget.group}/${Widget.version}`,
        kind: "Widget",
        metadata: { name: "pb-widget", namespace: ns },
        spec: { size: 1 },
      }, { namespace: ns });
      for (const base of [`/api/v1/namespaces/${ns}/configmaps`, widgets(ns)]) {
        const list = await get(noRetry, `${base}?labelSelector=`, partial("PartialObjectMetadataList"));
        assert.equal(list.code, 200, base);
        assert.equal(list.type, PROTOBUF, base);
        const decoded = decodeKubernetesProtobuf(list.body) as Any;
        assert.equal(decoded.apiVersion, "meta.k8s.io/v1");
        assert.equal(decoded.kind, "PartialObjectMetadataList");
        assert.ok(decoded.items.length >= 1);
        assert.ok(decoded.items.every((i: Any) => i.metadata.uid && !("data" in i) && !("spec" in i)));
        const name = base.endsWith("widgets") ? "pb-widget" : "pb-meta";
        const one = await get(noRetry, `${base}/${name}`, partial("PartialObjectMetadata"));
        assert.equal(one.type, PROTOBUF);
        const obj = decodeKubernetesProtobuf(one.body) as Any;
        assert.equal(obj.kind, "PartialObjectMetadata");
        assert.equal(obj.metadata.name, name);
        const missing = await get(noRetry, `${base}/pb-none`, partial("PartialObjectMetadata"));
        assert.equal(missing.code, 404);
        assert.equal(missing.type, "application/json");
      }
    },
  },
  {
    name: "a protobuf watch as=PartialObjectMetadata streams PartialObjectMetadata frames (ConfigMaps and Widgets)",
    async run({ noRetry, ns }) {
      for (const [base, name] of [[`/api/v1/namespaces/${ns}/configmaps`, "pb-meta"], [widgets(ns), "pb-widget"]]) {
        const res = await noRetry.request("GET", base, {
          accept: `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1`,
          query: { watch: "1", resourceVersion: "0", timeoutSeconds: 1, fieldSelector: `metadata.name=${name}` },
        });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), `${PROTOBUF};stream=watch`);
        const event = firstWatchEvent(res.body);
        assert.equal(event.type, "ADDED");
        assert.equal(event.object.apiVersion, "meta.k8s.io/v1");
        assert.equal(event.object.kind, "PartialObjectMetadata");
        assert.equal(event.object.metadata.name, name);
      }
    },
  },
  {
    name: "a custom resource's Status errors are protobuf: 404 with protobuf preferred, 406 for protobuf alone",
    async run({ noRetry, ns }) {
      const missing = await get(noRetry, `${widgets(ns)}/pb-none`, `${PROTOBUF}, application/json`);
      assert.equal(missing.code, 404);
      assert.equal(missing.type, PROTOBUF);
      const status = decodeKubernetesProtobuf(missing.body) as Any;
      assert.equal(status.kind, "Status");
      assert.equal(status.reason, "NotFound");
      assert.equal(status.message, `widgets.${Widget.group} "pb-none" not found`);
      assert.deepEqual(status.details, { name: "pb-none", group: Widget.group, kind: "widgets" });
      const refused = await get(noRetry, `${widgets(ns)}/pb-widget`, PROTOBUF);
      assert.equal(refused.code, 406);
      assert.equal(refused.type, PROTOBUF);
      const notAcceptable = decodeKubernetesProtobuf(refused.body) as Any;
      assert.equal(notAcceptable.reason, "NotAcceptable");
      assert.equal(
        notAcceptable.message,
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
      );
      const object = await get(noRetry, `${widgets(ns)}/pb-widget`, `${PROTOBUF}, application/json`);
      assert.equal(object.code, 200);
      assert.equal(object.type, "application/json");
    },
  },
];
