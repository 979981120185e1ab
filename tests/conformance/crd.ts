/**
 * Conformance cases: CustomResourceDefinitions: establishment, defaulting, schema validation, generation and the status subresource.
 * @module
 */
import assert from "node:assert/strict";
import type { CustomResourceDefinition } from "../../runtime/builtin_types.ts";
import { isInvalid } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { eventually } from "../../testing/eventually.ts";
import { type ConformanceCase, expectError, POLL, Widget, WIDGET_CRD, type WidgetObject } from "./support.ts";

/** CustomResourceDefinitions: establishment, defaulting, schema validation, generation and the status subresource. */
export const crdCases: ConformanceCase[] = [
  {
    name: "CRD becomes Established and serves its kind; defaults applied; 422 names the field",
    async run({ client, ns }) {
      await client.create<KubeObject>(
        CoreTypes.CustomResourceDefinition,
        structuredClone(WIDGET_CRD) as unknown as KubeObject,
      );
      await eventually("CRD Established", async () => {
        const crd = await client.get<CustomResourceDefinition>(
          CoreTypes.CustomResourceDefinition,
          WIDGET_CRD.metadata.name,
        );
        const established = (crd.status?.conditions ?? []).find((c) => c.type === "Established");
        return established?.status === "True" ? true : undefined;
      }, POLL);
      const w = await eventually("widgets served", () =>
        client.create<WidgetObject>(Widget, {
          apiVersion: "conformance.kubeop.dev/v1",
          kind: "Widget",
          metadata: { name: "w1", namespace: ns },
          spec: { size: 3 },
        }, { namespace: ns }), POLL);
      assert.equal(w.spec.color, "red");
      assert.equal(w.metadata.generation, 1);
      const bad = await expectError(
        client.create<KubeObject>(Widget, {
          apiVersion: "conformance.kubeop.dev/v1",
          kind: "Widget",
          metadata: { name: "w-bad", namespace: ns },
          spec: { size: 1000, color: "green" },
        }, { namespace: ns }),
        isInvalid,
        "schema violation",
      );
      assert.equal(bad.status.reason, "Invalid");
      assert.match(bad.status.message!, /spec\.size/);
      assert.match(bad.status.message!, /spec\.color/);
      const fields = (bad.status.details?.causes ?? []).map((c) => c.field).sort();
      assert.deepEqual(fields, ["spec.color", "spec.size"]);
    },
  },
  {
    name: "generation: spec changes bump it, label and status changes do not; status subresource",
    async run({ client, ns }) {
      const w = await client.get(Widget, "w1", { namespace: ns });
      const labelled = await client.patch(Widget, "w1", { metadata: { labels: { a: "b" } } }, {
        namespace: ns,
        type: "merge",
      });
      assert.equal(labelled.metadata.generation, w.metadata.generation);
      const resized = await client.patch<WidgetObject>(Widget, "w1", {
        spec: { size: 4 },
        status: { phase: "ignored" },
      }, {
        namespace: ns,
        type: "merge",
      });
      assert.equal(resized.metadata.generation, w.metadata.generation! + 1);
      assert.equal(resized.status?.phase, undefined, "main resource ignores status");
      const st = await client.patch<WidgetObject>(Widget, "w1", { spec: { size: 99 }, status: { phase: "Ready" } }, {
        namespace: ns,
        type: "merge",
        subresource: "status",
      });
      assert.equal(st.status?.phase, "Ready");
      assert.equal(st.spec.size, 4, "status subresource ignores spec");
      assert.equal(st.metadata.generation, resized.metadata.generation);
    },
  },
];
