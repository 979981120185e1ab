/**
 * Conformance cases: built-in validation of ObjectMeta (labels, annotations, finalizers, ownerReferences,
 * generateName), of the body's type and storage fields, and of request options. Each request is one kube-apiserver
 * v1.37 refuses; the case asserts the code, reason, message and causes it answers (messages copied from a v1.37.2
 * control plane).
 * @module
 */
import assert from "node:assert/strict";
import { CoreTypes } from "../../runtime/types.ts";
// The cases read many kinds' defaulted fields directly: the fake's loose object type (testing/apiserver/unstructured.ts).
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { INVALID, REQUIRED, several, single } from "./invalid_status.ts";
import type { ConformanceCase } from "./support.ts";
import { cause, expectStatus } from "./status_assert.ts";

const REGEX_KEY = "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'";
const NAME_PART = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with " +
  `an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', ${REGEX_KEY})`;
const LABEL_KEY_3_PARTS = "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must " +
  `start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', ${REGEX_KEY}) with an ` +
  "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and " +
  "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** Built-in validation: ObjectMeta and request options. */
export const validationMetaCases: ConformanceCase[] = [
  {
    name: "label keys and values: qualified-name keys, 63-byte values; three-part keys",
    async run({ noRetry, ns }) {
      const cm = (name: string, labels: Record<string, string>) =>
        noRetry.create(CoreTypes.ConfigMap, { metadata: { name, namespace: ns, labels } }, { namespace: ns });
      const long = "v".repeat(64);
      await expectStatus(
        cm("val-labels", { "bad key!": long }),
        several("ConfigMap", "val-labels", [
          [INVALID, "metadata.labels", `Invalid value: "bad key!": ${NAME_PART}`],
          [INVALID, "metadata.labels", `Invalid value: "${long}": must be no more than 63 bytes`],
        ]),
        "bad label",
      );
      await expectStatus(
        cm("val-labels2", { "a/b/c": "x" }),
        single("ConfigMap", "val-labels2", INVALID, "metadata.labels", `Invalid value: "a/b/c": ${LABEL_KEY_3_PARTS}`),
        "three-part label key",
      );
    },
  },
  {
    name: "annotation keys are qualified names and annotations total at most 256 KiB",
    async run({ noRetry, ns }) {
      const cm = (name: string, annotations: Record<string, string>) =>
        noRetry.create(CoreTypes.ConfigMap, { metadata: { name, namespace: ns, annotations } }, { namespace: ns });
      await expectStatus(
        cm("val-ann", { "bad key!": "v" }),
        single("ConfigMap", "val-ann", INVALID, "metadata.annotations", `Invalid value: "bad key!": ${NAME_PART}`),
        "bad annotation key",
      );
      await expectStatus(
        cm("val-ann2", { a: "x".repeat(262144) }),
        single(
          "ConfigMap",
          "val-ann2",
          "FieldValueTooLong",
          "metadata.annotations",
          "Too long: may not be more than 262144 bytes",
        ),
        "annotations over 256 KiB",
      );
    },
  },
  {
    name: "finalizer names: qualified names, and fully qualified unless standard",
    async run({ noRetry, ns }) {
      await expectStatus(
        noRetry.create(CoreTypes.ConfigMap, {
          metadata: { name: "val-fin", namespace: ns, finalizers: ["bad finalizer", "nodomain", "example.com/ok"] },
        }, { namespace: ns }),
        several("ConfigMap", "val-fin", [
          [INVALID, "metadata.finalizers", `Invalid value: "bad finalizer": ${NAME_PART}`],
          [
            INVALID,
            "metadata.finalizers[0]",
            'Invalid value: "bad finalizer": name is neither a standard finalizer name nor is it fully qualified',
          ],
          [
            INVALID,
            "metadata.finalizers[1]",
            'Invalid value: "nodomain": name is neither a standard finalizer name nor is it fully qualified',
          ],
        ]),
        "finalizers",
      );
    },
  },
  {
    name: "ownerReferences: uid and the other fields required, at most one controller",
    async run({ noRetry, ns }) {
      const cm = (name: string, ownerReferences: unknown[]) =>
        noRetry.create(CoreTypes.ConfigMap, { metadata: { name, namespace: ns, ownerReferences } } as KubeObject, {
          namespace: ns,
        });
      await expectStatus(
        cm("val-own", [{ apiVersion: "v1", kind: "ConfigMap", name: "x" }]),
        single(
          "ConfigMap",
          "val-own",
          REQUIRED,
          "metadata.ownerReferences[0].uid",
          "Required value: must not be empty",
        ),
        "owner without uid",
      );
      await expectStatus(
        cm("val-own2", [{ uid: "u1" }]),
        several("ConfigMap", "val-own2", [
          [REQUIRED, "metadata.ownerReferences[0].apiVersion", "Required value: must not be empty"],
          [REQUIRED, "metadata.ownerReferences[0].kind", "Required value: must not be empty"],
          [REQUIRED, "metadata.ownerReferences[0].name", "Required value: must not be empty"],
        ]),
        "owner with only a uid",
      );
      const refs = [
        { apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "u1", controller: true },
        { apiVersion: "v1", kind: "ConfigMap", name: "y", uid: "u2", controller: true },
      ];
      await expectStatus(
        cm("val-own3", refs),
        single(
          "ConfigMap",
          "val-own3",
          INVALID,
          "metadata.ownerReferences",
          `Invalid value: ${
            JSON.stringify(refs)
          }: Only one reference can have Controller set to true. Found "true" in references for ConfigMap/x and ConfigMap/y`,
        ),
        "two controllers",
      );
    },
  },
  {
    name: "generateName: validated as a name prefix of the kind (subdomain; Service: 63 characters)",
    async run({ noRetry, ns }) {
      const bad = await expectStatus(
        noRetry.create(CoreTypes.ConfigMap, { metadata: { generateName: "Bad_", namespace: ns } }, { namespace: ns }),
        {
          code: 422,
          reason: "Invalid",
          message: /^ConfigMap "Bad_[a-z0-9]{5}" is invalid: \[metadata\.generateName: /,
        },
        "bad generateName",
      );
      const generated = bad.details?.name ?? "";
      const [first, second] = bad.details?.causes ?? [];
      assert.deepEqual(first, cause(INVALID, "metadata.generateName", `Invalid value: "Bad_": ${SUBDOMAIN}`));
      assert.deepEqual(second, cause(INVALID, "metadata.name", `Invalid value: "${generated}": ${SUBDOMAIN}`));
      const prefix = "a".repeat(70);
      const long = await expectStatus(
        noRetry.create(CoreTypes.Service, {
          metadata: { generateName: prefix, namespace: ns },
          spec: { ports: [{ port: 80 }] },
        }, { namespace: ns }),
        {
          code: 422,
          reason: "Invalid",
          message: /^Service "a{58}[a-z0-9]{5}" is invalid: metadata\.generateName: /,
          causes: [
            cause(INVALID, "metadata.generateName", `Invalid value: "${prefix}": must be no more than 63 characters`),
          ],
        },
        "long generateName",
      );
      assert.equal(long.details?.name?.length, 63, "the generated name is truncated to 58 + 5");
    },
  },
  {
    name: "a body whose kind or apiVersion differs from the URL's is a 400 from the decoder",
    async run({ noRetry, ns }) {
      const post = (apiVersion: string, kind: string) =>
        noRetry.create(CoreTypes.ConfigMap, { apiVersion, kind, metadata: { name: "val-kind", namespace: ns } }, {
          namespace: ns,
        });
      await expectStatus(post("v1", "Secret"), {
        code: 400,
        reason: "BadRequest",
        message:
          'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
      }, "other kind");
      await expectStatus(post("apps/v1", "ConfigMap"), {
        code: 400,
        reason: "BadRequest",
        message:
          'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"',
      }, "other group");
    },
  },
  {
    name: "create with metadata.resourceVersion is refused by storage (500, no reason)",
    async run({ noRetry, ns }) {
      await expectStatus(
        noRetry.create(CoreTypes.ConfigMap, { metadata: { name: "val-rv", namespace: ns, resourceVersion: "12345" } }, {
          namespace: ns,
        }),
        { code: 500, message: "resourceVersion should not be set on objects to be created" },
        "create with resourceVersion",
      );
    },
  },
  {
    name: "update with another uid fails the storage precondition (409)",
    async run({ noRetry, ns }) {
      const cm = await noRetry.create<KubeObject>(
        CoreTypes.ConfigMap,
        { metadata: { name: "val-uid", namespace: ns } },
        {
          namespace: ns,
        },
      );
      const wrong = "00000000-0000-0000-0000-000000000000";
      await expectStatus(
        noRetry.update(CoreTypes.ConfigMap, { ...cm, metadata: { ...cm.metadata, uid: wrong } }),
        {
          code: 409,
          reason: "Conflict",
          message:
            `Operation cannot be fulfilled on configmaps "val-uid": StorageError: invalid object, Code: 4, Key: /registry/configmaps/${ns}/val-uid, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${wrong}, UID in object meta: ${cm.metadata.uid}`,
        },
        "wrong uid",
      );
    },
  },
  {
    name: "update with a resourceVersion that is not a number is a 500 from storage",
    async run({ noRetry, ns }) {
      const cm = await noRetry.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "val-badrv", namespace: ns },
      }, {
        namespace: ns,
      });
      await expectStatus(
        noRetry.update(CoreTypes.ConfigMap, { ...cm, metadata: { ...cm.metadata, resourceVersion: "abc" } }),
        { code: 500, message: 'strconv.ParseUint: parsing "abc": invalid syntax' },
        "non-numeric resourceVersion",
      );
    },
  },
  {
    name: "request options: dryRun other than All and a fieldManager over 128 bytes are 422 on CreateOptions",
    async run({ noRetry, ns }) {
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const post = async (query: Record<string, string>) => {
        const res = await noRetry.request("POST", path, { query, body: { metadata: { name: "val-opts" } } });
        return JSON.parse(new TextDecoder().decode(res.body));
      };
      const dry = await post({ dryRun: "Bogus" });
      assert.deepEqual(
        [dry.code, dry.reason, dry.message, dry.details],
        [
          422,
          "Invalid",
          'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"',
          {
            group: "meta.k8s.io",
            kind: "CreateOptions",
            causes: [
              cause("FieldValueNotSupported", "dryRun", 'Unsupported value: ["Bogus"]: supported values: "All"'),
            ],
          },
        ],
      );
      const manager = await post({ fieldManager: "m".repeat(129) });
      assert.deepEqual([manager.code, manager.message, manager.details?.causes], [
        422,
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
        [cause("FieldValueTooLong", "fieldManager", "Too long: may not be more than 128 bytes")],
      ]);
    },
  },
];
