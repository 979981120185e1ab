/**
 * Conformance cases: kube-apiserver's table printers for kinds beyond the common ones (found by the differential
 * battery, tests/differential/): a PodTemplate, a RoleBinding, a NetworkPolicy, an Ingress and a Deployment (its selector with
 * expressions) asked for as a Table get
 * kube's columns (names, types, priorities) and cells formatted as `pkg/printers/internalversion` formats them.
 * @module
 */
import assert from "node:assert/strict";
import { type ConformanceCase, TABLE_ACCEPT } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export const tablePrinterCases: ConformanceCase[] = [
  {
    name:
      "Tables of PodTemplates, RoleBindings, NetworkPolicies, Ingresses and Deployments have kube's columns and cells",
    async run({ noRetry, ns }) {
      const podSpec = { containers: [{ name: "a", image: "busybox:1.36" }, { name: "b", image: "nginx" }] };
      const objects: Array<[string, Any, Array<[string, string, number]>, unknown[]]> = [
        [
          `/api/v1/namespaces/${ns}/podtemplates`,
          { metadata: { name: "tbl-pt" }, template: { metadata: { labels: { z: "1", a: "2" } }, spec: podSpec } },
          [["Name", "string", 0], ["Containers", "string", 0], ["Images", "string", 0], ["Pod Labels", "string", 0]],
          ["tbl-pt", "a,b", "busybox:1.36,nginx", "a=2,z=1"],
        ],
        [
          `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
          {
            metadata: { name: "tbl-rb" },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
            subjects: [
              { kind: "User", name: "u1", apiGroup: "rbac.authorization.k8s.io" },
              { kind: "User", name: "u2", apiGroup: "rbac.authorization.k8s.io" },
              { kind: "ServiceAccount", name: "sa", namespace: ns },
            ],
          },
          [
            ["Name", "string", 0],
            ["Role", "string", 0],
            ["Age", "string", 0],
            ["Users", "string", 1],
            ["Groups", "string", 1],
            ["ServiceAccounts", "string", 1],
          ],
          ["tbl-rb", "ClusterRole/view", null, "u1, u2", "", `${ns}/sa`],
        ],
        [
          `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`,
          {
            metadata: { name: "tbl-np" },
            spec: {
              podSelector: {
                matchLabels: { tier: "web" },
                matchExpressions: [{ key: "app", operator: "In", values: ["y", "x"] }],
              },
            },
          },
          [["Name", "string", 0], ["Pod-Selector", "string", 0], ["Age", "string", 0]],
          ["tbl-np", "app in (x,y),tier=web", null],
        ],
        [
          `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`,
          {
            metadata: { name: "tbl-ing" },
            spec: {
              tls: [{ hosts: ["a.example.com"] }],
              defaultBackend: { service: { name: "s", port: { number: 80 } } },
              rules: [{ host: "a.example.com" }, { host: "b.example.com" }],
            },
          },
          [
            ["Name", "string", 0],
            ["Class", "string", 0],
            ["Hosts", "string", 0],
            ["Address", "string", 0],
            ["Ports", "string", 0],
            ["Age", "string", 0],
          ],
          ["tbl-ing", "<none>", "a.example.com,b.example.com", "", "80, 443", null],
        ],
        [
          `/apis/apps/v1/namespaces/${ns}/deployments`,
          {
            metadata: { name: "tbl-dep" },
            spec: {
              replicas: 0,
              selector: {
                matchLabels: { tier: "web" },
                matchExpressions: [{ key: "app", operator: "In", values: ["y", "x"] }, {
                  key: "canary",
                  operator: "DoesNotExist",
                }],
              },
              template: { metadata: { labels: { tier: "web", app: "x" } }, spec: podSpec },
            },
          },
          [
            ["Name", "string", 0],
            ["Ready", "string", 0],
            ["Up-to-date", "string", 0],
            ["Available", "string", 0],
            ["Age", "string", 0],
            ["Containers", "string", 1],
            ["Images", "string", 1],
            ["Selector", "string", 1],
          ],
          ["tbl-dep", "0/0", 0, 0, null, "a,b", "busybox:1.36,nginx", "app in (x,y),!canary,tier=web"],
        ],
      ];
      for (const [collection, body, columns, cells] of objects) {
        const created = await noRetry.request("POST", collection, { body: JSON.stringify(body) });
        assert.equal(created.status, 201, new TextDecoder().decode(created.body));
        const res = await noRetry.request("GET", `${collection}/${body.metadata.name}`, { accept: TABLE_ACCEPT });
        const table = JSON.parse(new TextDecoder().decode(res.body));
        assert.equal(res.status, 200, JSON.stringify(table));
        assert.deepEqual(table.columnDefinitions.map((c: Any) => [c.name, c.type, c.priority]), columns, collection);
        assert.ok(table.columnDefinitions.every((c: Any) => typeof c.description === "string" && c.description));
        const row: unknown[] = table.rows[0].cells;
        // Age cells (null here) depend on the clock: only their presence is checked.
        assert.deepEqual(row.map((c, i) => cells[i] === null ? null : c), cells, collection);
      }
    },
  },
];
