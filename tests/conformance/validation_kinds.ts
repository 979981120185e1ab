/**
 * Conformance cases: built-in validation of core kinds (ConfigMaps, Secrets, Services, Pods, Leases, Events); apps,
 * batch and rbac are in validation_workloads.ts. Each request is one kube-apiserver v1.37 refuses; the case asserts
 * the code, reason, message and causes it answers (messages copied from a v1.37.2 control plane).
 * @module
 */
import assert from "node:assert/strict";
import { CoreTypes } from "../../runtime/types.ts";
// The cases read many kinds' defaulted fields directly: the fake's loose object type (testing/apiserver/unstructured.ts).
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { INVALID, REQUIRED, several, single } from "./invalid_status.ts";
import type { ConformanceCase } from "./support.ts";
import { expectStatus } from "./status_assert.ts";

const CONFIG_KEY = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  " +
  "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** A pod spec kube accepts. */
const POD_SPEC = { containers: [{ name: "c", image: "busybox" }] };

/** Built-in validation: core kinds. */
export const validationKindCases: ConformanceCase[] = [
  {
    name: "ConfigMaps: config-key names, a key in both data and binaryData, 1 MiB in total",
    async run({ noRetry, ns }) {
      const cm = (name: string, body: Record<string, unknown>) =>
        noRetry.create(CoreTypes.ConfigMap, { metadata: { name, namespace: ns }, ...body }, { namespace: ns });
      await expectStatus(
        cm("val-cmkey", { data: { "bad key": "v" } }),
        single("ConfigMap", "val-cmkey", INVALID, "data[bad key]", `Invalid value: "bad key": ${CONFIG_KEY}`),
        "bad key",
      );
      await expectStatus(
        cm("val-cmdot", { binaryData: { "..": "dg==" } }),
        single("ConfigMap", "val-cmdot", INVALID, "binaryData[..]", `Invalid value: "..": must not be '..'`),
        "dot-dot key",
      );
      await expectStatus(
        cm("val-cmdup", { data: { k: "v" }, binaryData: { k: "dg==" } }),
        single(
          "ConfigMap",
          "val-cmdup",
          INVALID,
          "data[k]",
          'Invalid value: "k": duplicate of key present in binaryData',
        ),
        "key in both",
      );
      await expectStatus(
        cm("val-cmbig", { data: { a: "x".repeat(600_000), b: "y".repeat(600_000) } }),
        single("ConfigMap", "val-cmbig", "FieldValueTooLong", "[]", "Too long: may not be more than 1048576 bytes"),
        "over 1 MiB",
      );
    },
  },
  {
    name: "Secrets: data must be base64 (400), keys and 1 MiB; typed Secrets need their keys",
    async run({ noRetry, ns }) {
      const secret = (name: string, body: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Secret, { metadata: { name, namespace: ns }, ...body }, { namespace: ns });
      await expectStatus(secret("val-s64", { data: { a: "not base64!" } }), {
        code: 400,
        reason: "BadRequest",
        message: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
      }, "not base64");
      await expectStatus(
        secret("val-skey", { data: { "bad key": "dg==" } }),
        single("Secret", "val-skey", INVALID, "data[bad key]", `Invalid value: "bad key": ${CONFIG_KEY}`),
        "bad key",
      );
      await expectStatus(
        secret("val-sbig", { stringData: { a: "x".repeat(1048577) } }),
        single("Secret", "val-sbig", "FieldValueTooLong", "data", "Too long: may not be more than 1048576 bytes"),
        "over 1 MiB",
      );
      await expectStatus(
        secret("val-stls", { type: "kubernetes.io/tls", data: {} }),
        several("Secret", "val-stls", [
          [REQUIRED, "data[tls.crt]", "Required value"],
          [REQUIRED, "data[tls.key]", "Required value"],
        ]),
        "tls",
      );
      await expectStatus(
        secret("val-sdock", { type: "kubernetes.io/dockerconfigjson", data: {} }),
        single("Secret", "val-sdock", REQUIRED, "data[.dockerconfigjson]", "Required value"),
        "dockerconfigjson",
      );
      await expectStatus(
        secret("val-sdock2", {
          type: "kubernetes.io/dockerconfigjson",
          stringData: { ".dockerconfigjson": "{not json" },
        }),
        single(
          "Secret",
          "val-sdock2",
          INVALID,
          "data[.dockerconfigjson]",
          "Invalid value: \"<secret contents redacted>\": invalid character 'n' looking for beginning of object key string",
        ),
        "dockerconfigjson not JSON",
      );
      await expectStatus(
        secret("val-sbasic", { type: "kubernetes.io/basic-auth", data: {} }),
        several("Secret", "val-sbasic", [
          [REQUIRED, "data[username]", "Required value"],
          [REQUIRED, "data[password]", "Required value"],
        ]),
        "basic-auth",
      );
      await expectStatus(
        secret("val-ssa", { type: "kubernetes.io/service-account-token", data: {} }),
        single(
          "Secret",
          "val-ssa",
          REQUIRED,
          "metadata.annotations[kubernetes.io/service-account.name]",
          "Required value",
        ),
        "service-account-token",
      );
    },
  },
  {
    name: "Services: ports required, names, ranges, protocols and duplicates",
    async run({ noRetry, ns }) {
      const svc = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Service, { metadata: { name, namespace: ns }, spec }, { namespace: ns });
      await expectStatus(
        svc("val-svc1", {}),
        single("Service", "val-svc1", REQUIRED, "spec.ports", "Required value"),
        "no ports",
      );
      const range = "must be between 1 and 65535, inclusive";
      await expectStatus(
        svc("val-svc2", { ports: [{ name: "a", port: 0 }, { name: "a", port: 70000 }, { port: 80, protocol: "XTP" }] }),
        several("Service", "val-svc2", [
          [INVALID, "spec.ports[0].port", `Invalid value: 0: ${range}`],
          [INVALID, "spec.ports[0].targetPort", `Invalid value: 0: ${range}`],
          ["FieldValueDuplicate", "spec.ports[1].name", 'Duplicate value: "a"'],
          [INVALID, "spec.ports[1].port", `Invalid value: 70000: ${range}`],
          [INVALID, "spec.ports[1].targetPort", `Invalid value: 70000: ${range}`],
          [REQUIRED, "spec.ports[2].name", "Required value"],
          [
            "FieldValueNotSupported",
            "spec.ports[2].protocol",
            'Unsupported value: "XTP": supported values: "SCTP", "TCP", "UDP"',
          ],
        ]),
        "bad ports",
      );
      await expectStatus(
        svc("val-svc3", { ports: [{ name: "a", port: 80 }, { name: "b", port: 80 }] }),
        single(
          "Service",
          "val-svc3",
          "FieldValueDuplicate",
          "spec.ports[1]",
          'Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}',
        ),
        "duplicate port",
      );
    },
  },
  {
    name: "Services: the cluster IP may not change once set",
    async run({ noRetry, ns }) {
      await noRetry.create(CoreTypes.Service, {
        metadata: { name: "val-svcip", namespace: ns },
        spec: { ports: [{ port: 80 }] },
      }, {
        namespace: ns,
      });
      await expectStatus(
        noRetry.patch(CoreTypes.Service, "val-svcip", { spec: { clusterIP: "10.0.0.99" } }, {
          namespace: ns,
          type: "merge",
        }),
        single(
          "Service",
          "val-svcip",
          INVALID,
          "spec.clusterIPs[0]",
          'Invalid value: ["10.0.0.99"]: may not change once set',
        ),
        "clusterIP change",
      );
    },
  },
  {
    name: "Pods: containers with names and images required; updates may change only images and a few fields",
    async run({ noRetry, ns }) {
      const pod = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Pod, { metadata: { name, namespace: ns }, spec }, { namespace: ns });
      await expectStatus(
        pod("val-pod1", {}),
        single("Pod", "val-pod1", REQUIRED, "spec.containers", "Required value"),
        "no containers",
      );
      await expectStatus(
        pod("val-pod2", { containers: [{ name: "c" }, { name: "c", image: "x" }, { image: "y" }] }),
        several("Pod", "val-pod2", [
          [REQUIRED, "spec.containers[0].image", "Required value"],
          ["FieldValueDuplicate", "spec.containers[1].name", 'Duplicate value: "c"'],
          [REQUIRED, "spec.containers[2].name", "Required value"],
        ]),
        "container names and images",
      );
      await pod("val-pod3", POD_SPEC);
      const image = await noRetry.patch<KubeObject>(CoreTypes.Pod, "val-pod3", {
        spec: { containers: [{ name: "c", image: "busybox:2" }] },
      }, {
        namespace: ns,
        type: "strategic",
      });
      assert.equal(image.spec.containers[0].image, "busybox:2");
      const forbidden = await expectStatus(
        noRetry.patch(CoreTypes.Pod, "val-pod3", { spec: { restartPolicy: "Never" } }, {
          namespace: ns,
          type: "merge",
        }),
        {
          code: 422,
          reason: "Invalid",
          message:
            /^Pod "val-pod3" is invalid: spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`,`spec\.initContainers\[\*\]\.image`,`spec\.activeDeadlineSeconds`,`spec\.tolerations` \(only additions to existing tolerations\),`spec\.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)\n/,
        },
        "restartPolicy change",
      );
      const [only] = forbidden.details?.causes ?? [];
      assert.deepEqual([only?.reason, only?.field], ["FieldValueForbidden", "spec"]);
    },
  },
  {
    name: "Leases: positive durations, non-negative transitions; MicroTime needs six fractional digits (400)",
    async run({ noRetry, ns }) {
      const lease = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Lease, { metadata: { name, namespace: ns }, spec }, { namespace: ns });
      await expectStatus(
        lease("val-lease1", { leaseDurationSeconds: 0, leaseTransitions: -1 }),
        several("Lease.coordination.k8s.io", "val-lease1", [
          [INVALID, "spec.leaseDurationSeconds", "Invalid value: 0: must be greater than 0"],
          [INVALID, "spec.leaseTransitions", "Invalid value: -1: must be greater than or equal to 0"],
        ]),
        "durations",
      );
      await expectStatus(lease("val-lease2", { acquireTime: "2020-01-01T00:00:00Z" }), {
        code: 400,
        reason: "BadRequest",
        message:
          'Lease in version "v1" cannot be handled as a Lease: parsing time "2020-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
      }, "MicroTime without microseconds");
      const ok = await lease("val-lease3", { acquireTime: "2020-01-01T00:00:00.123456Z" });
      assert.equal(ok.spec.acquireTime, "2020-01-01T00:00:00.123456Z");
    },
  },
  {
    name: "Events: the involved object's namespace must match; events.k8s.io/v1 needs eventTime and a type",
    async run({ noRetry, ns }) {
      await expectStatus(
        noRetry.create(CoreTypes.CoreEvent, {
          metadata: { name: "val-ev1", namespace: ns },
          involvedObject: { kind: "Pod", name: "p", namespace: "other" },
          reason: "R",
          message: "m",
        }, { namespace: ns }),
        single(
          "Event",
          "val-ev1",
          INVALID,
          "involvedObject.namespace",
          'Invalid value: "other": does not match event.namespace',
        ),
        "core Event in another namespace",
      );
      await expectStatus(
        noRetry.create(CoreTypes.Event, { metadata: { name: "val-ev2", namespace: ns } }, { namespace: ns }),
        several("Event", "val-ev2", [
          [INVALID, "involvedObject.namespace", 'Invalid value: "": does not match event.namespace'],
          [REQUIRED, "eventTime", "Required value"],
          [INVALID, "type", 'Invalid value: "": has invalid value: '],
        ]),
        "empty events.k8s.io Event",
      );
    },
  },
  {
    name: "Services: a named targetPort is an IANA service name, sessionAffinity ClientIP or None",
    async run({ noRetry, ns }) {
      const svc = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Service, { metadata: { name, namespace: ns }, spec }, { namespace: ns, dryRun: true });
      await expectStatus(
        svc("val-svc-target", {
          ports: [
            { name: "a", port: 80, targetPort: "Not_Valid" },
            { name: "b", port: 81, targetPort: "12" },
            { name: "c", port: 82, targetPort: "-a--" },
          ],
          sessionAffinity: "Sticky",
        }),
        several("Service", "val-svc-target", [
          [
            INVALID,
            "spec.ports[0].targetPort",
            'Invalid value: "Not_Valid": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
          ],
          [INVALID, "spec.ports[1].targetPort", 'Invalid value: "12": must contain at least one letter (a-z)'],
          [INVALID, "spec.ports[2].targetPort", 'Invalid value: "-a--": must not contain consecutive hyphens'],
          [INVALID, "spec.ports[2].targetPort", 'Invalid value: "-a--": must not begin or end with a hyphen'],
          [
            "FieldValueNotSupported",
            "spec.sessionAffinity",
            'Unsupported value: "Sticky": supported values: "ClientIP", "None"',
          ],
        ]),
        "named target ports and affinity",
      );
    },
  },
  {
    name: "Pods: container ports (names, numbers, protocols) and dnsPolicy; an empty dnsPolicy is defaulted",
    async run({ noRetry, ns }) {
      const pod = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Pod, { metadata: { name, namespace: ns }, spec }, { namespace: ns, dryRun: true });
      await expectStatus(
        pod("val-pod-ports", {
          containers: [
            {
              name: "c",
              image: "busybox",
              ports: [
                { name: "Web", containerPort: 80 },
                { name: "web", containerPort: 81, hostPort: 70000, protocol: "ICMP" },
                { name: "web", containerPort: 82 },
                { containerPort: 70000 },
              ],
            },
          ],
          dnsPolicy: "Bogus",
        }),
        several("Pod", "val-pod-ports", [
          [
            INVALID,
            "spec.containers[0].ports[0].name",
            'Invalid value: "Web": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
          ],
          [
            INVALID,
            "spec.containers[0].ports[1].hostPort",
            "Invalid value: 70000: must be between 1 and 65535, inclusive",
          ],
          [
            "FieldValueNotSupported",
            "spec.containers[0].ports[1].protocol",
            'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
          ],
          ["FieldValueDuplicate", "spec.containers[0].ports[2].name", 'Duplicate value: "web"'],
          [
            INVALID,
            "spec.containers[0].ports[3].containerPort",
            "Invalid value: 70000: must be between 1 and 65535, inclusive",
          ],
          [
            "FieldValueNotSupported",
            "spec.dnsPolicy",
            'Unsupported value: "Bogus": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
          ],
        ]),
        "container ports and DNS policy",
      );
      const empty = await pod("val-pod-dns", { ...POD_SPEC, dnsPolicy: "" });
      assert.equal(empty.spec?.dnsPolicy, "ClusterFirst");
    },
  },
  {
    name: "Pods: volumes (one source, names), mounts naming a volume that passed, env names and valueFrom",
    async run({ noRetry, ns }) {
      const pod = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Pod, { metadata: { name, namespace: ns }, spec }, { namespace: ns, dryRun: true });
      const label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must " +
        "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is " +
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
      await expectStatus(
        pod("val-pod-vols", {
          containers: [{
            name: "c",
            image: "busybox",
            env: [
              { name: "A=B" },
              { name: "X", valueFrom: {} },
              { name: "Y", value: "y", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            ],
            volumeMounts: [
              { name: "a", mountPath: "/a" },
              { name: "b", mountPath: "/a" },
              { name: "Bad_Vol", mountPath: "/c" },
              { name: "none", mountPath: "/d" },
            ],
          }],
          volumes: [
            { name: "a", configMap: { name: "x" }, downwardAPI: {}, cephfs: { monitors: ["m"] } },
            { name: "b", emptyDir: {} },
            { name: "b", secret: { secretName: "s" } },
            { name: "Bad_Vol", emptyDir: {} },
            { name: "none" },
          ],
        }),
        several("Pod", "val-pod-vols", [
          ["FieldValueForbidden", "spec.volumes[0].downwarAPI", "Forbidden: may not specify more than 1 volume type"],
          ["FieldValueForbidden", "spec.volumes[0].configMap", "Forbidden: may not specify more than 1 volume type"],
          ["FieldValueDuplicate", "spec.volumes[2].name", 'Duplicate value: "b"'],
          [INVALID, "spec.volumes[3].name", `Invalid value: "Bad_Vol": ${label}`],
          [
            INVALID,
            "spec.containers[0].env[0].name",
            'Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters ' +
            "other than '='",
          ],
          [
            INVALID,
            "spec.containers[0].env[1].valueFrom",
            'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` ' +
            "or `fileKeyRef`",
          ],
          [
            INVALID,
            "spec.containers[0].env[2].valueFrom",
            'Invalid value: "": may not be specified when `value` is not empty',
          ],
          ["FieldValueNotFound", "spec.containers[0].volumeMounts[0].name", 'Not found: "a"'],
          [INVALID, "spec.containers[0].volumeMounts[1].mountPath", 'Invalid value: "/a": must be unique'],
          ["FieldValueNotFound", "spec.containers[0].volumeMounts[2].name", 'Not found: "Bad_Vol"'],
        ]),
        "volumes, mounts and env",
      );
      const defaulted = await pod("val-pod-emptydir", {
        containers: [{ name: "c", image: "busybox", volumeMounts: [{ name: "scratch", mountPath: "/s" }] }],
        volumes: [{ name: "scratch" }],
      });
      assert.deepEqual(
        (defaulted.spec?.volumes as Array<{ name: string; emptyDir?: unknown }>).find((v) => v.name === "scratch")
          ?.emptyDir,
        {},
      );
    },
  },
];
