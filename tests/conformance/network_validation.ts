/**
 * Conformance cases: NetworkPolicy and Ingress validation (pkg/apis/networking/validation ValidateNetworkPolicySpec; found by
 * comparing policies against v1.37.2: the fake stored every one kube refuses) — ports, peers, CIDRs under v1.37's
 * strict rules, policy types; a missing ipBlock CIDR, checked declaratively, last — and Ingress validation
 * (ValidateIngressSpec: hosts, paths, backends, TLS, class name).
 * @module
 */
import assert from "node:assert/strict";
import { sendBody } from "./support.ts";
import type { ConformanceCase } from "./support.ts";
import { assertCauses } from "./status_assert.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

/** Invalid policy specs and kube's causes for them (v1.37.2's answers). */
const INVALID: Array<[what: string, spec: Any, causes: string[]]> = [
  ["a protocol, a port and a CIDR", {
    podSelector: {},
    ingress: [{ ports: [{ protocol: "ICMP", port: 99999 }], from: [{ ipBlock: { cidr: "10.0.0.0/33" } }] }],
  }, [
    'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
    "spec.ingress[0].ports[0].port: Invalid value: 99999: must be between 1 and 65535, inclusive",
    `spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": ${CIDR}`,
  ]],
  ["end ports, peers and policy types", {
    podSelector: {},
    ingress: [{
      ports: [{ port: 80, endPort: 70 }, { port: "http", endPort: 90 }, { endPort: 100 }],
      from: [{}, { ipBlock: { cidr: "10.0.0.0/8", except: ["11.0.0.0/16", "x"] }, podSelector: {} }],
    }],
    egress: [{ to: [{ ipBlock: { cidr: "" } }] }],
    policyTypes: ["Ingress", "Sideways"],
  }, [
    "spec.ingress[0].ports[0].endPort: Invalid value: 70: must be greater than or equal to `port`",
    "spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric",
    "spec.ingress[0].ports[2].endPort: Invalid value: 100: may not be specified when `port` is not specified",
    "spec.ingress[0].from[0]: Required value: must specify a peer",
    'spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: "11.0.0.0/16": must be a strict subset of `cidr`',
    `spec.ingress[0].from[1].ipBlock.except[1]: Invalid value: "x": ${CIDR}`,
    "spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer",
    'spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
    "spec.egress[0].to[0].ipBlock.cidr: Required value",
  ]],
  ["strict CIDRs", {
    podSelector: {},
    ingress: [{
      from: [
        { ipBlock: { cidr: "10.0.0.1/8", except: ["10.2.0.0/016"] } },
        { ipBlock: { cidr: "::ffff:10.0.0.0/104" } },
        { ipBlock: { cidr: "2001:db8::/32", except: ["2001:db9::/48"] } },
      ],
    }],
  }, [
    'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length',
    'spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.2.0.0/016": must not have leading 0s in IP or ' +
    "prefix length",
    'spec.ingress[0].from[1].ipBlock.cidr: Invalid value: "::ffff:10.0.0.0/104": must not have an IPv4-mapped IPv6 ' +
    "address",
    'spec.ingress[0].from[2].ipBlock.except[0]: Invalid value: "2001:db9::/48": must be a strict subset of `cidr`',
  ]],
  ["too many policy types", { podSelector: {}, policyTypes: ["Ingress", "Egress", "Ingress"] }, [
    'spec.policyTypes: Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two policyTypes',
  ]],
];

export const networkValidationCases: ConformanceCase[] = [
  {
    name: "an invalid NetworkPolicy is 422 with kube's causes: ports, peers, strict CIDRs, policy types",
    async run({ noRetry, ns }) {
      const path = `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`;
      const post = (name: string, spec: Any) =>
        sendBody(noRetry, "POST", path, { metadata: { name }, spec }, "application/json", { dryRun: "All" });
      for (const [i, [what, spec, causes]] of INVALID.entries()) {
        const res = await post(`np-invalid-${i}`, spec);
        assertCauses(res, causes, what);
      }
      const ok = await post("np-valid", {
        podSelector: {},
        ingress: [{
          ports: [{ protocol: "TCP", port: 80, endPort: 90 }],
          from: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.0.0.0/24"] } }],
        }],
      });
      assert.equal(ok.code, 201, JSON.stringify(ok.json));
    },
  },
  {
    name:
      "an invalid Ingress is 422 with kube's causes: hosts, paths, backends, TLS; a valid one is stored in Go's order",
    async run({ noRetry, ns }) {
      const path = `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`;
      const post = (name: string, spec: Any) =>
        sendBody(noRetry, "POST", path, { metadata: { name }, spec }, "application/json", { dryRun: "All" });
      const label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must " +
        "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is " +
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
      const wildcard = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which " +
        "must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. " +
        "'*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
      const bad = await post("ing-invalid", {
        defaultBackend: { service: { name: "Bad_Svc", port: { name: "http", number: 80 } } },
        rules: [
          { host: "10.0.0.1", http: { paths: [] } },
          {
            host: "*.*.example.com",
            http: {
              paths: [
                { path: "/a//b/.", pathType: "Exact", backend: {} },
                { path: "x", pathType: "ImplementationSpecific", backend: { service: { name: "s" } } },
                {
                  path: "/",
                  pathType: "Regex",
                  backend: { resource: { kind: "X", name: "y" }, service: { name: "s" } },
                },
                { path: "/p", backend: { service: { name: "s", port: { number: 70000 } } } },
              ],
            },
          },
        ],
      });
      assertCauses(bad, [
        `spec.defaultBackend.service.name: Invalid value: "Bad_Svc": ${label}`,
        'spec.defaultBackend: Invalid value: "": cannot set both port name & port number',
        'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
        "spec.rules[0].http.paths: Required value",
        `spec.rules[1].host: Invalid value: "*.*.example.com": ${wildcard}`,
        "spec.rules[1].http.paths[0].path: Invalid value: \"/a//b/.\": must not contain '//'",
        "spec.rules[1].http.paths[0].path: Invalid value: \"/a//b/.\": cannot end with '/.'",
        'spec.rules[1].http.paths[0].backend: Invalid value: "": resource or service backend is required',
        'spec.rules[1].http.paths[1].path: Invalid value: "x": must be an absolute path',
        "spec.rules[1].http.paths[1].backend: Required value: port name or number is required",
        'spec.rules[1].http.paths[2].pathType: Unsupported value: "Regex": supported values: "Exact", ' +
        '"ImplementationSpecific", "Prefix"',
        'spec.rules[1].http.paths[2].backend: Invalid value: "": cannot set both resource and service backends',
        "spec.rules[1].http.paths[3].pathType: Required value: pathType must be specified",
      ]);
      const empty = await post("ing-empty", {});
      assertCauses(empty, ["spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"]);
      const ok = await post("ing-valid", {
        rules: [{
          host: "*.example.com",
          http: {
            paths: [{ path: "/x", pathType: "Prefix", backend: { service: { name: "s", port: { name: "web" } } } }],
          },
        }],
        tls: [{ hosts: ["*.example.com"], secretName: "tls" }],
        ingressClassName: "nginx",
      });
      assert.equal(ok.code, 201, JSON.stringify(ok.json));
      assert.deepEqual(Object.keys(ok.json.spec), ["ingressClassName", "tls", "rules"]);
    },
  },
];
