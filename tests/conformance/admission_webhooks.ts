/**
 * Conformance cases: admission webhooks (admissionregistration.k8s.io/v1 Mutating/ValidatingWebhookConfigurations)
 * as kube-apiserver v1.37 calls them — the AdmissionReview request's fields, JSON patches, reinvocation, warnings,
 * denials and failures in kube's words, failurePolicy, timeoutSeconds, selectors, matchPolicy, dry runs, DELETE, and a
 * service webhook reached through an ExternalName Service. The webhook is an HTTPS server of the test on 127.0.0.1
 * (admission_webhook_server.ts), reached by `clientConfig.url` with a `caBundle`; each case's webhooks select only
 * its own ConfigMaps (label `CASE_LABEL` of admission_webhooks_support.ts) in the run's namespace.
 * @module
 */
import assert from "node:assert/strict";
import { call } from "./crd_helpers.ts";
import { jsonPatch, startTestWebhook, type TestWebhook } from "./admission_webhook_server.ts";
import {
  closedPort,
  configMap,
  configMaps,
  MWC,
  untilInEffect,
  VWC,
  webhook,
  withObjects,
} from "./admission_webhooks_support.ts";
import { type ConformanceCase, POLL } from "./support.ts";
import { eventually } from "../../testing/eventually.ts";

/** Runs `fn` with a test webhook serving `handlers`, stopped afterwards. */
async function withWebhook(
  handlers: Parameters<typeof startTestWebhook>[0],
  fn: (hook: TestWebhook) => Promise<void>,
  serviceHosts: string[] = [],
): Promise<void> {
  const hook = await startTestWebhook(handlers, serviceHosts);
  try {
    await fn(hook);
  } finally {
    await hook.stop();
  }
}

const config = (name: string, webhooks: unknown[]) => ({ metadata: { name }, webhooks });
const denial = (message: string, code = 403, reason = "Forbidden") => ({
  allowed: false,
  status: { code, reason, message },
});

export const admissionWebhookCases: ConformanceCase[] = [
  {
    name: "a validating webhook's denial: its code and reason, kube's message prefix",
    run: ({ client, ns }) =>
      withWebhook({ "/deny": () => denial("no thanks") }, async (hook) => {
        const id = "deny";
        const name = `deny.${ns}.conformance.kubeop.dev`;
        const cfg = config(`${ns}-deny`, [webhook(name, ns, id, { url: hook.url("/deny"), caBundle: hook.caBundle })]);
        await withObjects(client, [[VWC, cfg]], async () => {
          await untilInEffect(client, ns, id, (got) => got.code !== 201);
          const got = await call(client, "POST", configMaps(ns), configMap("denied", id));
          assert.equal(got.code, 403, JSON.stringify(got.body));
          assert.equal(got.body.reason, "Forbidden");
          assert.equal(got.body.message, `admission webhook "${name}" denied the request: no thanks`);
          assert.equal((await call(client, "GET", `${configMaps(ns)}/denied`)).code, 404);
        });
      }),
  },
  {
    name: "a denial without message or code: 400 and 'denied the request without explanation'",
    run: ({ client, ns }) =>
      withWebhook({ "/bare": () => ({ allowed: false }) }, async (hook) => {
        const id = "bare";
        const name = `bare.${ns}.conformance.kubeop.dev`;
        const cfg = config(`${ns}-bare`, [webhook(name, ns, id, { url: hook.url("/bare"), caBundle: hook.caBundle })]);
        await withObjects(client, [[VWC, cfg]], async () => {
          const got = await untilInEffect(client, ns, id, (got) => got.code !== 201);
          assert.equal(got.code, 400, JSON.stringify(got.body));
          assert.equal(got.body.message, `admission webhook "${name}" denied the request without explanation`);
        });
      }),
  },
  {
    name: "a mutating webhook's JSON patch is stored; the AdmissionReview request names kind, resource, user, options",
    run: ({ client, ns }) =>
      withWebhook({
        "/label": () => ({
          allowed: true,
          ...jsonPatch([{ op: "add", path: "/metadata/labels/mutated", value: "yes" }]),
        }),
      }, async (hook) => {
        const id = "mutate";
        const name = `label.${ns}.conformance.kubeop.dev`;
        const cfg = config(`${ns}-mutate`, [
          webhook(name, ns, id, { url: hook.url("/label"), caBundle: hook.caBundle }),
        ]);
        await withObjects(client, [[MWC, cfg]], async () => {
          await untilInEffect(client, ns, id, (got) => got.body.metadata?.labels?.mutated === "yes");
          const got = await call(client, "POST", configMaps(ns), configMap("mutated", id));
          assert.equal(got.code, 201, JSON.stringify(got.body));
          assert.equal(got.body.metadata.labels?.mutated, "yes");
          const stored = await call(client, "GET", `${configMaps(ns)}/mutated`);
          assert.equal(stored.body.metadata.labels?.mutated, "yes");
          const req = hook.received("/label").find((r) => r.name === "mutated")!;
          assert.ok(req, "the webhook saw the create");
          assert.match(req.uid, /^[0-9a-f-]{36}$/);
          assert.deepEqual(req.kind, { group: "", version: "v1", kind: "ConfigMap" });
          assert.deepEqual(req.resource, { group: "", version: "v1", resource: "configmaps" });
          assert.deepEqual(req.requestKind, req.kind);
          assert.deepEqual(req.requestResource, req.resource);
          assert.equal(req.subResource, undefined);
          assert.equal(req.namespace, ns);
          assert.equal(req.operation, "CREATE");
          assert.equal(req.dryRun, false);
          assert.ok(req.userInfo.username, "userInfo.username");
          assert.ok(req.userInfo.groups?.includes("system:authenticated"), JSON.stringify(req.userInfo));
          assert.deepEqual(req.options, { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" });
          assert.equal(req.oldObject ?? null, null);
          assert.equal(req.object?.kind, "ConfigMap");
          assert.deepEqual(req.object?.data as Record<string, string>, { a: "1" });
        });
      }),
  },
  {
    name: "UPDATE through PATCH: operation UPDATE, oldObject as stored, UpdateOptions",
    run: ({ client, ns }) =>
      withWebhook({ "/seen": () => ({ allowed: true }) }, async (hook) => {
        const id = "update";
        const name = `seen.${ns}.conformance.kubeop.dev`;
        const hooks = [
          webhook(name, ns, id, { url: hook.url("/seen"), caBundle: hook.caBundle }, {
            rules: [{ operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
          }),
        ];
        const created = await call(client, "POST", configMaps(ns), configMap("updated", id));
        assert.equal(created.code, 201);
        await withObjects(client, [[VWC, config(`${ns}-update`, hooks)]], async () => {
          await eventually("UPDATEs reach the webhook", async () => {
            await client.request("PATCH", `${configMaps(ns)}/updated?dryRun=All`, {
              body: { data: { a: "probe" } },
              contentType: "application/merge-patch+json",
            });
            return hook.received("/seen").some((r) => r.operation === "UPDATE");
          }, POLL);
          const patched = await client.request("PATCH", `${configMaps(ns)}/updated`, {
            body: { data: { a: "2" } },
            contentType: "application/merge-patch+json",
          });
          assert.equal(patched.status, 200);
          const req = hook.received("/seen").findLast((r) => r.operation === "UPDATE" && !r.dryRun)!;
          assert.ok(req, `an UPDATE review: ${JSON.stringify(hook.received("/seen").map((r) => r.operation))}`);
          assert.deepEqual(req.object?.data, { a: "2" });
          assert.deepEqual(req.oldObject?.data, { a: "1" });
          assert.equal(
            (req.oldObject?.metadata as { resourceVersion: string }).resourceVersion,
            created.body.metadata.resourceVersion,
          );
          assert.equal(req.options?.kind, "UpdateOptions");
        });
      }),
  },
  {
    name: "DELETE: a validating webhook refuses it; object null, oldObject the stored object, DeleteOptions",
    run: ({ client, ns }) =>
      withWebhook({ "/keep": () => denial("keep it") }, async (hook) => {
        const id = "delete";
        const name = `keep.${ns}.conformance.kubeop.dev`;
        const hooks = [
          webhook(name, ns, id, { url: hook.url("/keep"), caBundle: hook.caBundle }, {
            rules: [{ operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
          }),
        ];
        assert.equal((await call(client, "POST", configMaps(ns), configMap("kept", id))).code, 201);
        await withObjects(client, [[VWC, config(`${ns}-delete`, hooks)]], async () => {
          const got = await eventually("the DELETE refused", async () => {
            const r = await call(client, "DELETE", `${configMaps(ns)}/kept`, undefined, "?dryRun=All");
            return r.code !== 200 ? r : undefined;
          }, POLL);
          assert.equal(got.code, 403, JSON.stringify(got.body));
          assert.equal(got.body.message, `admission webhook "${name}" denied the request: keep it`);
          const req = hook.received("/keep").at(-1)!;
          assert.equal(req.operation, "DELETE");
          assert.equal(req.object ?? null, null);
          assert.equal((req.oldObject?.metadata as { name: string }).name, "kept");
          assert.equal(req.options?.kind, "DeleteOptions");
          assert.equal(req.dryRun, true);
        });
        // Once the configuration is gone (kube's informer may lag a moment), the delete goes through.
        await eventually(
          "the DELETE admitted",
          async () => (await call(client, "DELETE", `${configMaps(ns)}/kept`)).code === 200,
          POLL,
        );
      }),
  },
  {
    name: "warnings of an allowing webhook come back as Warning headers",
    run: ({ client, ns }) =>
      withWebhook(
        { "/warn": () => ({ allowed: true, warnings: ["mind the gap", "second warning"] }) },
        async (hook) => {
          const id = "warn";
          const name = `warn.${ns}.conformance.kubeop.dev`;
          const cfg = config(`${ns}-warn`, [
            webhook(name, ns, id, { url: hook.url("/warn"), caBundle: hook.caBundle }),
          ]);
          await withObjects(client, [[VWC, cfg]], async () => {
            await untilInEffect(client, ns, id, (got) => got.warnings.length > 0);
            const got = await call(client, "POST", configMaps(ns), configMap("warned", id));
            assert.equal(got.code, 201);
            assert.deepEqual(got.warnings, ["mind the gap", "second warning"]);
          });
        },
      ),
  },
  {
    name: "failurePolicy Fail on an unreachable webhook: 500 'failed calling webhook'; Ignore: admitted",
    run: async ({ client, ns }) => {
      const id = "unreachable";
      const port = closedPort();
      const url = `https://127.0.0.1:${port}/gone`;
      const failName = `fail.${ns}.conformance.kubeop.dev`;
      const ignoreName = `ignore.${ns}.conformance.kubeop.dev`;
      const fail = config(`${ns}-fail`, [webhook(failName, ns, id, { url }, { failurePolicy: "Fail" })]);
      const ignored = `${id}-ignored`;
      const ignore = config(`${ns}-ignore`, [
        webhook(ignoreName, ns, ignored, { url }, { failurePolicy: "Ignore" }),
      ]);
      await withObjects(client, [[VWC, fail], [VWC, ignore]], async () => {
        const got = await untilInEffect(client, ns, id, (got) => got.code !== 201);
        assert.equal(got.code, 500, JSON.stringify(got.body));
        assert.equal(got.body.reason, "InternalError");
        const prefix =
          `Internal error occurred: failed calling webhook "${failName}": failed to call webhook: Post "${url}?timeout=10s": `;
        assert.equal(got.body.message, `${prefix}dial tcp 127.0.0.1:${port}: connect: connection refused`);
        const admitted = await call(client, "POST", configMaps(ns), configMap("admitted", ignored));
        assert.equal(admitted.code, 201, JSON.stringify(admitted.body));
      });
    },
  },
  {
    name: "caBundle verified: a webhook whose certificate another CA signed fails the call",
    run: async ({ client, ns }) => {
      const other = await startTestWebhook({});
      try {
        await withWebhook({ "/ok": () => ({ allowed: true }) }, async (hook) => {
          const id = "cabundle";
          const name = `ca.${ns}.conformance.kubeop.dev`;
          const cfg = config(`${ns}-cabundle`, [
            webhook(name, ns, id, { url: hook.url("/ok"), caBundle: other.caBundle }),
          ]);
          await withObjects(client, [[VWC, cfg]], async () => {
            const got = await untilInEffect(client, ns, id, (got) => got.code !== 201);
            assert.equal(got.code, 500, JSON.stringify(got.body));
            const prefix = `Internal error occurred: failed calling webhook "${name}": failed to call webhook: Post "${
              hook.url("/ok")
            }?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`;
            assert.ok(got.body.message.startsWith(prefix), got.body.message);
          });
        });
      } finally {
        await other.stop();
      }
    },
  },
  {
    name: "matchConditions (CEL): a webhook is not called for an object a condition rules out",
    run: ({ client, ns }) =>
      withWebhook({ "/cond": () => denial("conditions matched") }, async (hook) => {
        const id = "conditions";
        const name = `cond.${ns}.conformance.kubeop.dev`;
        const cfg = config(`${ns}-conditions`, [
          webhook(name, ns, id, { url: hook.url("/cond"), caBundle: hook.caBundle }, {
            matchConditions: [
              { name: "not-exempt", expression: "object.metadata.name != 'exempt'" },
              { name: "create-only", expression: "request.operation == 'CREATE'" },
            ],
          }),
        ]);
        await withObjects(client, [[VWC, cfg]], async () => {
          const got = await untilInEffect(client, ns, id, (got) => got.code !== 201);
          assert.equal(got.body.message, `admission webhook "${name}" denied the request: conditions matched`);
          assert.equal((await call(client, "POST", configMaps(ns), configMap("exempt", id))).code, 201);
          assert.ok(!hook.received("/cond").some((r) => r.name === "exempt"));
        });
      }),
  },
  {
    name: "timeoutSeconds: a webhook slower than it fails the call (failurePolicy Fail)",
    run: ({ client, ns }) => {
      const slow = () => new Promise<{ allowed: boolean }>((r) => setTimeout(() => r({ allowed: true }), 2_500));
      return withWebhook({ "/slow": slow }, async (hook) => {
        const id = "slow";
        const name = `slow.${ns}.conformance.kubeop.dev`;
        const cfg = config(`${ns}-slow`, [
          webhook(name, ns, id, { url: hook.url("/slow"), caBundle: hook.caBundle }, { timeoutSeconds: 1 }),
        ]);
        await withObjects(client, [[VWC, cfg]], async () => {
          const got = await untilInEffect(client, ns, id, (got) => got.code !== 201);
          assert.equal(got.code, 500, JSON.stringify(got.body));
          const prefix = `Internal error occurred: failed calling webhook "${name}": failed to call webhook: Post "${
            hook.url("/slow")
          }?timeout=1s": `;
          assert.ok(got.body.message.startsWith(prefix), got.body.message);
        });
      });
    },
  },
  {
    name: "namespaceSelector and objectSelector: webhooks see only what they select",
    run: ({ client, ns }) =>
      withWebhook({ "/sel": () => denial("selected"), "/other-ns": () => denial("wrong namespace") }, async (hook) => {
        const id = "selectors";
        const sel = `sel.${ns}.conformance.kubeop.dev`;
        const other = `otherns.${ns}.conformance.kubeop.dev`;
        const cfg = config(`${ns}-selectors`, [
          webhook(sel, ns, id, { url: hook.url("/sel"), caBundle: hook.caBundle }),
          webhook(other, ns, id, { url: hook.url("/other-ns"), caBundle: hook.caBundle }, {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": `${ns}-elsewhere` } },
          }),
        ]);
        await withObjects(client, [[VWC, cfg]], async () => {
          const got = await untilInEffect(client, ns, id, (got) => got.code !== 201);
          assert.equal(got.body.message, `admission webhook "${sel}" denied the request: selected`);
          const unlabelled = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "unlabelled" } };
          assert.equal((await call(client, "POST", configMaps(ns), unlabelled)).code, 201);
          assert.equal(hook.received("/other-ns").length, 0);
          assert.ok(!hook.received("/sel").some((r) => r.name === "unlabelled"));
        });
      }),
  },
  {
    name: "reinvocationPolicy IfNeeded: an earlier webhook is called again after a later one changed the object",
    run: ({ client, ns }) =>
      withWebhook({
        "/first": () => ({
          allowed: true,
          ...jsonPatch([{ op: "add", path: "/metadata/labels/first", value: "yes" }]),
        }),
        "/second": () => ({
          allowed: true,
          ...jsonPatch([{ op: "add", path: "/metadata/labels/second", value: "yes" }]),
        }),
      }, async (hook) => {
        const id = "reinvoke";
        const cc = (path: string) => ({ url: hook.url(path), caBundle: hook.caBundle });
        const a = config(`${ns}-reinvoke-a`, [
          webhook(`first.${ns}.conformance.kubeop.dev`, ns, id, cc("/first"), { reinvocationPolicy: "IfNeeded" }),
        ]);
        const b = config(`${ns}-reinvoke-b`, [webhook(`second.${ns}.conformance.kubeop.dev`, ns, id, cc("/second"))]);
        await withObjects(client, [[MWC, a], [MWC, b]], async () => {
          await untilInEffect(client, ns, id, (got) => got.body.metadata?.labels?.second === "yes");
          const got = await call(client, "POST", configMaps(ns), configMap("reinvoked", id));
          assert.equal(got.code, 201, JSON.stringify(got.body));
          assert.equal(got.body.metadata.labels?.first, "yes");
          assert.equal(got.body.metadata.labels?.second, "yes");
          const firsts = hook.received("/first").filter((r) => r.name === "reinvoked");
          assert.equal(firsts.length, 2, "called again");
          const labels = (r: (typeof firsts)[number]) =>
            (r.object?.metadata as { labels: Record<string, string> }).labels;
          assert.equal(labels(firsts[0]).second, undefined);
          assert.equal(labels(firsts[1]).second, "yes");
          assert.equal(hook.received("/second").filter((r) => r.name === "reinvoked").length, 1);
        });
      }),
  },
  {
    name: "dryRun=All reaches a sideEffects None webhook with dryRun true and stores nothing",
    run: ({ client, ns }) =>
      withWebhook({ "/dry": () => ({ allowed: true, warnings: ["dry seen"] }) }, async (hook) => {
        const id = "dryrun";
        const name = `dry.${ns}.conformance.kubeop.dev`;
        const cfg = config(`${ns}-dry`, [webhook(name, ns, id, { url: hook.url("/dry"), caBundle: hook.caBundle })]);
        await withObjects(client, [[VWC, cfg]], async () => {
          await untilInEffect(client, ns, id, (got) => got.warnings.includes("dry seen"));
          const got = await call(client, "POST", configMaps(ns), configMap("dry", id), "?dryRun=All");
          assert.equal(got.code, 201);
          const req = hook.received("/dry").find((r) => r.name === "dry")!;
          assert.equal(req.dryRun, true);
          assert.deepEqual(req.options, { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1", dryRun: ["All"] });
          assert.equal((await call(client, "GET", `${configMaps(ns)}/dry`)).code, 404);
        });
      }),
  },
  {
    name: "a service webhook reached through an ExternalName Service (path and port from clientConfig.service)",
    run: async ({ client, ns }) => {
      const svc = "conformance-webhook";
      await withWebhook({ "/svc/deny": () => denial("through the service") }, async (hook) => {
        const id = "service";
        const name = `svc.${ns}.conformance.kubeop.dev`;
        const service = {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: svc },
          spec: {
            type: "ExternalName",
            externalName: "localhost",
            ports: [{ name: "https", port: hook.port, protocol: "TCP" }],
          },
        };
        const clientConfig = {
          service: { name: svc, namespace: ns, port: hook.port, path: "/svc/deny" },
          caBundle: hook.caBundle,
        };
        const cfg = config(`${ns}-service`, [webhook(name, ns, id, clientConfig)]);
        await withObjects(client, [[`/api/v1/namespaces/${ns}/services`, service], [VWC, cfg]], async () => {
          const got = await untilInEffect(client, ns, id, (got) => got.code === 403);
          assert.equal(got.body.message, `admission webhook "${name}" denied the request: through the service`);
        });
      }, [`${svc}.${ns}.svc`]);
    },
  },
  {
    name: "defaults of a webhook configuration: failurePolicy, matchPolicy, selectors, timeout, scope, port",
    run: async ({ client, ns }) => {
      const hook = {
        name: `defaults.${ns}.conformance.kubeop.dev`,
        clientConfig: { service: { name: "nowhere", namespace: ns } },
        rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"] }],
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        objectSelector: { matchLabels: { "never.conformance.kubeop.dev": "x" } },
      };
      await withObjects(client, [[MWC, config(`${ns}-defaults`, [hook])]], async () => {
        const got = await call(client, "GET", `${MWC}/${ns}-defaults`);
        const w = got.body.webhooks[0];
        assert.equal(w.failurePolicy, "Fail");
        assert.equal(w.matchPolicy, "Equivalent");
        assert.deepEqual(w.namespaceSelector, {});
        assert.equal(w.timeoutSeconds, 10);
        assert.equal(w.reinvocationPolicy, "Never");
        assert.equal(w.rules[0].scope, "*");
        assert.equal(w.clientConfig.service.port, 443);
        assert.equal(got.body.metadata.generation, 1);
      });
    },
  },
];
