import assert from "node:assert/strict";
import { ApiError } from "../../runtime/client/errors.ts";
import { decodeKubernetesProtobuf } from "./protobuf.ts";

const FIXTURES = new URL("./testdata/protobuf/", import.meta.url);

// A tiny protobuf encoder, to build bodies field by field in tests.
type Field = [number, "varint", number | bigint] | [number, "bytes", Uint8Array | string | Field[]];
function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}
function encode(fields: Field[]): Uint8Array {
  const out: number[] = [];
  for (const [number, kind, value] of fields) {
    if (kind === "varint") {
      out.push(...varint((number << 3) | 0), ...varint(value as number));
    } else {
      const bytes = typeof value === "string"
        ? new TextEncoder().encode(value)
        : value instanceof Uint8Array
        ? value
        : encode(value as Field[]);
      out.push(...varint((number << 3) | 2), ...varint(bytes.length), ...bytes);
    }
  }
  return new Uint8Array(out);
}
function envelope(apiVersion: string, kind: string, raw: Field[]): Uint8Array {
  const unknown = encode([[1, "bytes", [[1, "bytes", apiVersion], [2, "bytes", kind]]], [2, "bytes", encode(raw)], [
    3,
    "bytes",
    "",
  ], [4, "bytes", ""]]);
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...unknown]);
}
const mapEntry = (k: string, v: string | Uint8Array): Field[] => [[1, "bytes", k], [2, "bytes", v]];

Deno.test("protobuf: real kubectl 1.32 `create` bodies decode to what `--dry-run=client -o json` prints", async () => {
  for (const name of ["namespace", "configmap", "secret", "serviceaccount", "deployment", "role", "service"]) {
    const bytes = await Deno.readFile(new URL(`${name}.pb`, FIXTURES));
    const meta = JSON.parse(await Deno.readTextFile(new URL(`${name}.json`, FIXTURES)));
    assert.equal(meta.contentType, "application/vnd.kubernetes.protobuf", name);
    const expected = JSON.parse(await Deno.readTextFile(new URL(`${name}.expected.json`, FIXTURES)));
    assert.deepEqual(decodeKubernetesProtobuf(bytes), expected, name);
  }
});

Deno.test("protobuf: ObjectMeta fields, Secret bytes and stringData, pointer bool kept when false", () => {
  const objectMeta: Field[] = [
    [1, "bytes", "s"],
    [2, "bytes", "s-"],
    [3, "bytes", "ns"],
    [5, "bytes", "uid-1"],
    [6, "bytes", "42"],
    [7, "varint", 3],
    [8, "bytes", [[1, "varint", 1735689600]]],
    [11, "bytes", mapEntry("app", "x")],
    [12, "bytes", mapEntry("note", "")],
    [13, "bytes", [[1, "bytes", "Deployment"], [3, "bytes", "web"], [4, "bytes", "u-9"], [6, "varint", 1], [
      5,
      "bytes",
      "apps/v1",
    ]]],
    [14, "bytes", "a/b"],
    [14, "bytes", "c/d"],
  ];
  const obj = decodeKubernetesProtobuf(envelope("v1", "Secret", [
    [1, "bytes", objectMeta],
    [2, "bytes", mapEntry("bin", new Uint8Array([0, 255, 1]))],
    [2, "bytes", [[1, "bytes", "empty"]]],
    [3, "bytes", "kubernetes.io/tls"],
    [4, "bytes", mapEntry("plain", "text")],
    [5, "varint", 0],
  ]));
  assert.deepEqual(obj, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: "s",
      generateName: "s-",
      namespace: "ns",
      uid: "uid-1",
      resourceVersion: "42",
      generation: 3,
      creationTimestamp: "2025-01-01T00:00:00Z",
      labels: { app: "x" },
      annotations: { note: "" },
      ownerReferences: [{ kind: "Deployment", name: "web", uid: "u-9", controller: true, apiVersion: "apps/v1" }],
      finalizers: ["a/b", "c/d"],
    },
    data: { bin: "AP8B", empty: "" },
    type: "kubernetes.io/tls",
    stringData: { plain: "text" },
    immutable: false,
  });
});

Deno.test("protobuf: Pod containers, IntOrString, Quantity, inline VolumeSource with empty emptyDir", () => {
  const container: Field[] = [
    [1, "bytes", "main"],
    [2, "bytes", "busybox"],
    [3, "bytes", "sh"],
    [4, "bytes", "-c"],
    [4, "bytes", "echo hi"],
    [8, "bytes", [[1, "bytes", mapEntry("cpu", encode([[1, "bytes", "100m"]]))]]],
  ];
  const probe: Field[] = [[1, "bytes", [[2, "bytes", [[1, "bytes", "/healthz"], [2, "bytes", [[1, "varint", 1], [
    3,
    "bytes",
    "http",
  ]]]]]]], [2, "varint", 5]];
  container.push([10, "bytes", probe]);
  const pod = decodeKubernetesProtobuf(envelope("v1", "Pod", [
    [1, "bytes", [[1, "bytes", "p"]]],
    [2, "bytes", [
      [1, "bytes", [[1, "bytes", "scratch"], [2, "bytes", [[2, "bytes", []]]]]],
      [2, "bytes", container],
      [3, "bytes", "Never"],
      [10, "bytes", "node-1"],
    ]],
  ]));
  assert.deepEqual(pod.spec, {
    volumes: [{ name: "scratch", emptyDir: {} }],
    containers: [{
      name: "main",
      image: "busybox",
      command: ["sh"],
      args: ["-c", "echo hi"],
      resources: { limits: { cpu: "100m" } },
      livenessProbe: { httpGet: { path: "/healthz", port: "http" }, initialDelaySeconds: 5 },
    }],
    restartPolicy: "Never",
    nodeName: "node-1",
  });
});

Deno.test("protobuf: bad magic, unknown kind and truncated data are 400 BadRequest", () => {
  const is400 = (err: unknown) => err instanceof ApiError && err.code === 400;
  assert.throws(() => decodeKubernetesProtobuf(new TextEncoder().encode('{"kind":"Pod"}')), is400);
  assert.throws(() => decodeKubernetesProtobuf(envelope("example.com/v1", "Foo", [])), is400);
  const good = envelope("v1", "ConfigMap", [[1, "bytes", [[1, "bytes", "x"]]]]);
  assert.throws(() => decodeKubernetesProtobuf(good.subarray(0, good.length - 5)), is400);
});

Deno.test("protobuf: DeleteOptions bodies (typed clients such as Helm's Secret storage) keep pointer zeros", () => {
  const body = decodeKubernetesProtobuf(envelope("v1", "DeleteOptions", [
    [1, "varint", 0],
    [2, "bytes", [[1, "bytes", "uid-1"]]],
    [4, "bytes", "Background"],
    [5, "bytes", "All"],
  ]));
  assert.deepEqual(body, {
    apiVersion: "v1",
    kind: "DeleteOptions",
    metadata: {},
    gracePeriodSeconds: 0,
    preconditions: { uid: "uid-1" },
    propagationPolicy: "Background",
    dryRun: ["All"],
  });
});

Deno.test("protobuf: managedFields FieldsV1 and RawExtension bytes become JSON", () => {
  const fields = new TextEncoder().encode('{"f:data":{"f:a":{}}}');
  const cm = decodeKubernetesProtobuf(envelope("v1", "ConfigMap", [
    [1, "bytes", [[1, "bytes", "x"], [17, "bytes", [
      [1, "bytes", "kubectl"],
      [2, "bytes", "Update"],
      [3, "bytes", "v1"],
      [6, "bytes", "FieldsV1"],
      [7, "bytes", [[1, "bytes", fields]]],
    ]]]],
  ]));
  assert.deepEqual(cm.metadata.managedFields, [{
    manager: "kubectl",
    operation: "Update",
    apiVersion: "v1",
    fieldsType: "FieldsV1",
    fieldsV1: { "f:data": { "f:a": {} } },
  }]);
});

// go-*.pb: written by k8s.io/apimachinery v0.37.2's protobuf.Serializer.Encode (what client-go sends as a
// `Content-Type: application/vnd.kubernetes.protobuf` body) for the objects below.
Deno.test("protobuf: Go-encoded ControllerRevision and EndpointSlice bodies (kube-controller-manager's) decode", async () => {
  const bytes = await Deno.readFile(new URL("go-controllerrevision.pb", FIXTURES));
  // The wire envelope Go writes: magic, then runtime.Unknown{typeMeta{apiVersion, kind}, raw, "", ""}.
  assert.deepEqual([...bytes.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  assert.deepEqual(decodeKubernetesProtobuf(bytes), {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: "web-7d4b9c",
      namespace: "default",
      labels: { app: "web", "controller-revision-hash": "7d4b9c" },
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        name: "web",
        uid: "u-1",
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    data: { spec: { template: { $patch: "replace", metadata: { labels: { app: "web" } } } } },
    revision: 1,
  });
  assert.deepEqual(decodeKubernetesProtobuf(await Deno.readFile(new URL("go-endpointslice.pb", FIXTURES))), {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { generateName: "web-", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.244.0.5"], conditions: { ready: true }, nodeName: "fake-node" }],
    ports: [{ name: "http", port: 80, protocol: "TCP" }],
  });
});

Deno.test("protobuf: every kind kube's registry lists for a group-version decodes; other kinds are 400", () => {
  for (
    const [apiVersion, kind] of [
      ["apps/v1", "ControllerRevision"],
      ["discovery.k8s.io/v1", "EndpointSlice"],
      ["storage.k8s.io/v1", "StorageClass"],
      ["networking.k8s.io/v1", "NetworkPolicy"],
      ["autoscaling/v2", "HorizontalPodAutoscaler"],
      ["scheduling.k8s.io/v1", "PriorityClass"],
      ["admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"],
      ["apiextensions.k8s.io/v1", "CustomResourceDefinition"],
      ["events.k8s.io/v1", "Event"],
      ["certificates.k8s.io/v1", "CertificateSigningRequest"],
    ]
  ) {
    const decoded = decodeKubernetesProtobuf(envelope(apiVersion, kind, [[1, "bytes", [[1, "bytes", "x"]]]]));
    assert.deepEqual(decoded, { apiVersion, kind, metadata: { name: "x" } }, `${apiVersion} ${kind}`);
  }
  // A custom resource, and a kind in the wrong group, are not in the registry.
  for (const [apiVersion, kind] of [["example.com/v1", "Widget"], ["apps/v1", "Pod"]]) {
    assert.throws(
      () => decodeKubernetesProtobuf(envelope(apiVersion, kind, [])),
      (err) => err instanceof ApiError && err.code === 400 && err.message.includes(`no kind "${kind}"`),
    );
  }
});
