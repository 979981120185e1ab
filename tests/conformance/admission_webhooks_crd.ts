/**
 * Conformance cases: admission webhooks on custom resources — matchPolicy Equivalent across a CRD's versions, and
 * rules naming a status subresource. Same webhook and helpers as admission_webhooks.ts.
 * @module
 */
import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import { call, CRD_PATH, type Json, twoVersionCrd } from "./crd_helpers.ts";
import { startTestWebhook, type TestWebhook } from "./admission_webhook_server.ts";
import { CASE_LABEL, VWC, webhook, withObjects } from "./admission_webhooks_support.ts";
import { type ConformanceCase, POLL } from "./support.ts";

/** Runs `fn` with a test webhook serving `handlers`, stopped afterwards. */
async function withWebhook(
  handlers: Parameters<typeof startTestWebhook>[0],
  fn: (hook: TestWebhook) => Promise<void>,
): Promise<void> {
  const hook = await startTestWebhook(handlers);
  try {
    await fn(hook);
  } finally {
    await hook.stop();
  }
}

const config = (name: string, webhooks: unknown[]) => ({ metadata: { name }, webhooks });

export const admissionWebhookCrdCases: ConformanceCase[] = [
  {
    name: "matchPolicy Equivalent: a webhook for v1 gets a v2 request converted, requestKind v2; Exact is not called",
    run: ({ client, ns }) =>
      withWebhook({ "/equivalent": () => ({ allowed: true }), "/exact": () => ({ allowed: true }) }, async (hook) => {
        const id = "equivalent";
        const crd = gadgetCrd();
        const rules = [{ operations: ["CREATE"], apiGroups: [GADGETS], apiVersions: ["v1"], resources: ["gadgets"] }];
        const cc = (path: string) => ({ url: hook.url(path), caBundle: hook.caBundle });
        const cfg = config(`${ns}-equivalent`, [
          webhook(`equivalent.${ns}.conformance.kubeop.dev`, ns, id, cc("/equivalent"), { rules }),
          webhook(`exact.${ns}.conformance.kubeop.dev`, ns, id, cc("/exact"), { rules, matchPolicy: "Exact" }),
        ]);
        await withObjects(client, [[CRD_PATH, crd], [VWC, cfg]], async () => {
          const path = `/apis/${GADGETS}/v2/namespaces/${ns}/gadgets`;
          const gadget = (name: string) => ({
            apiVersion: `${GADGETS}/v2`,
            kind: "Gadget",
            metadata: { name, labels: { [CASE_LABEL]: id } },
            spec: { size: 1 },
          });
          await eventually("v2 Gadgets reach the webhook", async () => {
            await call(client, "POST", path, gadget("probe"), "?dryRun=All");
            return hook.received("/equivalent").length > 0;
          }, POLL);
          assert.equal((await call(client, "POST", path, gadget("g"))).code, 201);
          const req = hook.received("/equivalent").find((r) => r.name === "g")!;
          assert.deepEqual(req.kind, { group: GADGETS, version: "v1", kind: "Gadget" });
          assert.deepEqual(req.resource, { group: GADGETS, version: "v1", resource: "gadgets" });
          assert.deepEqual(req.requestKind, { group: GADGETS, version: "v2", kind: "Gadget" });
          assert.deepEqual(req.requestResource, { group: GADGETS, version: "v2", resource: "gadgets" });
          assert.equal(req.object?.apiVersion, `${GADGETS}/v1`);
          assert.equal(hook.received("/exact").length, 0);
        });
      }),
  },
  {
    name: "a rule for a status subresource: subResource and requestSubResource name it",
    run: ({ client, ns }) =>
      withWebhook({ "/status": () => ({ allowed: true }) }, async (hook) => {
        const id = "status";
        const crd = gadgetCrd();
        crd.metadata.name = `dials.${GADGETS}`;
        crd.spec.names = { plural: "dials", singular: "dial", kind: "Dial", listKind: "DialList" };
        crd.spec.versions = [{ ...crd.spec.versions[0], subresources: { status: {} } }];
        const rules = [{
          operations: ["UPDATE"],
          apiGroups: [GADGETS],
          apiVersions: ["v1"],
          resources: ["dials/status"],
        }];
        const cfg = config(`${ns}-status`, [
          webhook(
            `status.${ns}.conformance.kubeop.dev`,
            ns,
            id,
            { url: hook.url("/status"), caBundle: hook.caBundle },
            {
              rules,
            },
          ),
        ]);
        await withObjects(client, [[CRD_PATH, crd], [VWC, cfg]], async () => {
          const path = `/apis/${GADGETS}/v1/namespaces/${ns}/dials`;
          const dial = {
            apiVersion: `${GADGETS}/v1`,
            kind: "Dial",
            metadata: { name: "d", labels: { [CASE_LABEL]: id } },
          };
          await eventually("dials served", async () => (await call(client, "POST", path, dial)).code === 201, POLL);
          await eventually("status writes reach the webhook", async () => {
            await client.request("PATCH", `${path}/d/status`, {
              body: { status: { phase: "x" } },
              contentType: "application/merge-patch+json",
            });
            return hook.received("/status").length > 0;
          }, POLL);
          const req = hook.received("/status")[0];
          assert.equal(req.subResource, "status");
          assert.equal(req.requestSubResource, "status");
          assert.equal(req.operation, "UPDATE");
          assert.deepEqual(req.resource, { group: GADGETS, version: "v1", resource: "dials" });
        });
      }),
  },
];

const GADGETS = "webhook.conformance.kubeop.dev";

/** A CRD served in v1 (storage) and v2 with the same schema (conversion None). */
function gadgetCrd(): Json {
  return twoVersionCrd(GADGETS, "Gadget", { v1: "size", v2: "size" });
}
