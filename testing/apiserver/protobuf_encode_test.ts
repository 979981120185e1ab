import assert from "node:assert/strict";
import { decodeKubernetesProtobuf } from "./protobuf.ts";
import { encodeKubernetesProtobuf, encodeWatchEventFrame, isProtobufEncodable } from "./protobuf_encode.ts";

const FIXTURES = new URL("./testdata/protobuf/", import.meta.url);

const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("protobuf encode: Go-written bodies (kubectl, client-go) decode and re-encode to the same bytes", async () => {
  const names = [...Deno.readDirSync(FIXTURES)].map((e) => e.name).filter((n) => n.endsWith(".pb")).sort();
  assert.ok(names.length >= 9, names.join(","));
  for (const name of names) {
    const bytes = await Deno.readFile(new URL(name, FIXTURES));
    assert.equal(hex(encodeKubernetesProtobuf(decodeKubernetesProtobuf(bytes))), hex(bytes), name);
  }
});

const ANSWERS = new URL("./testdata/protobuf/answers/", import.meta.url);

Deno.test("protobuf encode: kube-apiserver v1.37.2's own protobuf answers, from the JSON of the same objects", async () => {
  // Recorded by testdata/capture_protobuf_answers.ts: a Pod, a Deployment, a PodList and a 404 Status.
  for (const name of ["pod", "deployment", "podlist", "status-404"]) {
    const kube = await Deno.readFile(new URL(`${name}.pb`, ANSWERS));
    const json = JSON.parse(await Deno.readTextFile(new URL(`${name}.json`, ANSWERS)));
    assert.equal(hex(encodeKubernetesProtobuf(json)), hex(kube), name);
  }
});

Deno.test("protobuf encode: kube-apiserver v1.37.2's watch frames (ADDED, MODIFIED), from the JSON watch events", async () => {
  const kube = await Deno.readFile(new URL("watch.pb", ANSWERS));
  const events = (await Deno.readTextFile(new URL("watch.jsonl", ANSWERS))).split("\n").filter(Boolean)
    .map((line) => JSON.parse(line));
  assert.deepEqual(events.map((e) => e.type), ["ADDED", "MODIFIED"]);
  const frames = events.map((e) => hex(encodeWatchEventFrame(e.type, e.object)));
  assert.equal(frames.join(""), hex(kube));
});

Deno.test("protobuf encode: zero values, pointers, maps sorted by key, well-known types", () => {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "p",
      creationTimestamp: "2024-05-06T07:08:09Z",
      labels: { "b": "2", "a": "1", "é": "3", "Z": "0" },
    },
    spec: {
      containers: [{
        name: "c",
        image: "i",
        ports: [{ containerPort: 80 }],
        resources: { limits: { memory: "1Gi", cpu: "500m" } },
        readinessProbe: { httpGet: { port: "http" } },
      }],
      terminationGracePeriodSeconds: 0, // a pointer set to zero is written
      securityContext: { supplementalGroups: [1, 2] },
    },
  };
  const back = decodeKubernetesProtobuf(encodeKubernetesProtobuf(pod));
  assert.deepEqual(back.metadata, pod.metadata);
  // deno-lint-ignore no-explicit-any
  const spec = back.spec as any;
  assert.equal(spec.terminationGracePeriodSeconds, 0);
  assert.deepEqual(spec.containers[0].resources, { limits: { cpu: "500m", memory: "1Gi" } });
  assert.equal(spec.containers[0].readinessProbe.httpGet.port, "http");
  assert.deepEqual(spec.securityContext.supplementalGroups, [1, 2]);
  assert.equal(spec.activeDeadlineSeconds, undefined, "an absent pointer stays absent");
  // Keys in Go's byte order: "Z" < "a" < "b" < "é".
  const bytes = encodeKubernetesProtobuf(pod);
  const text = new TextDecoder("latin1").decode(bytes);
  const at = (k: string) => text.indexOf(`\n${String.fromCharCode(k.length)}${k}`);
  assert.ok(at("Z") < at("a") && at("a") < at("b"), "label keys sorted");
  // An empty object still carries its non-pointer zero fields: metadata (field 1) then spec (2) then status (3).
  const empty = encodeKubernetesProtobuf({ apiVersion: "v1", kind: "ConfigMap", metadata: {} });
  assert.ok(empty.length > 20, "ObjectMeta's zero strings and the empty creationTimestamp are written");
});

Deno.test("protobuf encode: a watch frame is a big-endian length and a WatchEvent around the enveloped object", () => {
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", resourceVersion: "7" } };
  const frame = encodeWatchEventFrame("ADDED", cm);
  const length = new DataView(frame.buffer).getUint32(0);
  assert.equal(length, frame.length - 4);
  const event = frame.subarray(4);
  assert.deepEqual([...event.subarray(0, 7)], [0x0a, 5, ...new TextEncoder().encode("ADDED")]);
  const object = encodeKubernetesProtobuf(cm);
  // field 2 (object: RawExtension) → field 1 (raw) → k8s\0 envelope
  assert.equal(hex(event.subarray(event.length - object.length)), hex(object));
});

Deno.test("protobuf encode: only kinds kube's registry lists (plus Status) are encodable", () => {
  assert.ok(isProtobufEncodable({ apiVersion: "apps/v1", kind: "DeploymentList" }));
  assert.ok(isProtobufEncodable({ apiVersion: "v1", kind: "Status" }));
  assert.ok(!isProtobufEncodable({ apiVersion: "example.com/v1", kind: "Widget" }));
  assert.ok(!isProtobufEncodable({ apiVersion: "meta.k8s.io/v1", kind: "Table" }));
  assert.throws(
    () => encodeKubernetesProtobuf({ apiVersion: "example.com/v1", kind: "Widget" }),
    /no protobuf message/,
  );
});

Deno.test("protobuf: JSON names from types.go and Go slice messages (ExtraValue) both ways", () => {
  // The decoder read these as "Webhooks", "Expression" and {items: [...]} before the tables carried JSON names.
  const webhooks = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "p" },
    spec: { validations: [{ expression: "true" }], variables: [{ name: "v", expression: "1" }] },
  };
  // deno-lint-ignore no-explicit-any
  const vap = decodeKubernetesProtobuf(encodeKubernetesProtobuf(webhooks)) as any;
  assert.deepEqual(vap.spec.validations, [{ expression: "true" }]);
  assert.deepEqual(vap.spec.variables, [{ name: "v", expression: "1" }]);
  const mwc = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: "m" },
    webhooks: [{ name: "w.example.com", clientConfig: {}, sideEffects: "None", admissionReviewVersions: ["v1"] }],
  };
  // deno-lint-ignore no-explicit-any
  assert.equal((decodeKubernetesProtobuf(encodeKubernetesProtobuf(mwc)) as any).webhooks[0].name, "w.example.com");
  const sar = {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    metadata: {},
    spec: { user: "u", extra: { scopes: ["a", "b"] }, resourceAttributes: { verb: "get" } },
  };
  // deno-lint-ignore no-explicit-any
  assert.deepEqual((decodeKubernetesProtobuf(encodeKubernetesProtobuf(sar)) as any).spec.extra, { scopes: ["a", "b"] });
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { plural: "widgets", kind: "Widget" },
      scope: "Namespaced",
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            "x-kubernetes-preserve-unknown-fields": true,
            properties: { spec: { type: "object", additionalProperties: { type: "string" }, default: { a: "b" } } },
            additionalProperties: false,
          },
        },
      }],
    },
  };
  // deno-lint-ignore no-explicit-any
  const back = decodeKubernetesProtobuf(encodeKubernetesProtobuf(crd)) as any;
  assert.deepEqual(back.spec.versions[0].schema, crd.spec.versions[0].schema);
});

Deno.test("protobuf encode: values of the wrong JSON type count as absent instead of throwing", () => {
  const odd = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s", labels: "x", finalizers: 3 },
    data: { a: "%%%not base64" },
    immutable: "yes",
    type: 7,
  };
  // deno-lint-ignore no-explicit-any
  const back = decodeKubernetesProtobuf(encodeKubernetesProtobuf(odd as any)) as any;
  assert.deepEqual([back.metadata.name, back.metadata.labels, back.data, back.type], ["s", undefined, { a: "" }, "7"]);
});
