/**
 * Conformance cases: NetworkPolicy validation (pkg/apis/networking/validation ValidateNetworkPolicySpec; found by
 * comparing policies against v1.37.2: the fake stored every one kube refuses) — ports, peers, CIDRs under v1.37's
 * strict rules, policy types; a missing ipBlock CIDR, checked declaratively, last.
 * @module
 */
import assert from "node:assert/strict";
import { sendBody } from "./support.ts";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const causesOf = (json: Any) => (json.details?.causes ?? []).map((c: Any) => `${c.field}: ${c.message}`);
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
        assert.equal(res.code, 422, `${what}: ${JSON.stringify(res.json)}`);
        assert.deepEqual(causesOf(res.json), causes, what);
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
];
