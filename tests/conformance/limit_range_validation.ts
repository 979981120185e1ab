/**
 * Conformance case: LimitRange validation (pkg/apis/core/validation ValidateLimitRange; found by comparing 9
 * LimitRanges against v1.37.2: the fake accepted every one kube refuses). Judged after the defaults are filled in
 * (a Container item's `default` from `max`, `defaultRequest` from `default` then `min`); items stored in Go's field
 * order.
 * @module
 */
import assert from "node:assert/strict";
import { sendBody } from "./support.ts";
import type { ConformanceCase } from "./support.ts";
import { assertCauses } from "./status_assert.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Invalid LimitRange items and kube's causes for them (v1.37.2's answers; one resource per item: Go map order). */
const INVALID: Array<[what: string, limits: Any[], causes: string[]]> = [
  ["min above max, and the defaults filled from max", [{ type: "Container", min: { cpu: "2" }, max: { cpu: "1" } }], [
    'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
    'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1',
    'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1',
  ]],
  ["an unknown type", [{ type: "Bogus", max: { cpu: "-1" } }], [
    'spec.limits[0].type: Invalid value: "Bogus": must be a standard limit type or fully qualified',
  ]],
  ["defaults on a Pod item", [{ type: "Pod", default: { cpu: "1" }, defaultRequest: { cpu: "1" } }], [
    "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
    "spec.limits[0].defaultRequest: Forbidden: may not be specified when `type` is 'Pod'",
  ]],
  ["defaults above max, a repeated type, a resource no container asks for", [
    { type: "Container", max: { memory: "1Gi" }, default: { memory: "2Gi" }, defaultRequest: { memory: "3Gi" } },
    { type: "PersistentVolumeClaim", min: { storage: "1Gi" } },
    { type: "PersistentVolumeClaim", max: { storage: "1Gi" } },
  ], [
    'spec.limits[0].defaultRequest[memory]: Invalid value: "3Gi": default request value 3Gi is greater than max value 1Gi',
    'spec.limits[0].defaultRequest[memory]: Invalid value: "3Gi": default request value 3Gi is greater than default ' +
    "limit value 2Gi",
    'spec.limits[0].default[memory]: Invalid value: "1Gi": default value 2Gi is greater than max value 1Gi',
    'spec.limits[2].type: Duplicate value: "PersistentVolumeClaim"',
  ]],
  ["a claim item without storage bounds", [{ type: "PersistentVolumeClaim", max: { cpu: "1" } }], [
    "spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was " +
    "provided",
  ]],
  ["ratios", [
    { type: "Container", min: { cpu: "100m" }, max: { cpu: "1" }, maxLimitRequestRatio: { cpu: "20" } },
    { type: "Pod", maxLimitRequestRatio: { memory: "0.5" } },
  ], [
    'spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "20": ratio 20 is greater than max/min = 10.000000',
    'spec.limits[1].maxLimitRequestRatio[memory]: Invalid value: "500m": ratio 500m is less than 1',
  ]],
  ["huge pages cannot be overcommitted", [
    { type: "Container", default: { "hugepages-2Mi": "4Mi" }, defaultRequest: { "hugepages-2Mi": "2Mi" } },
  ], [
    'spec.limits[0].defaultRequest[hugepages-2Mi]: Invalid value: "2Mi": default value 4Mi must equal to ' +
    "defaultRequest value 2Mi in hugepages-2Mi",
  ]],
];

export const limitRangeValidationCases: ConformanceCase[] = [
  {
    name: "an invalid LimitRange is 422 with kube's causes; a valid one is stored in Go's field order",
    async run({ noRetry, ns }) {
      const path = `/api/v1/namespaces/${ns}/limitranges`;
      const post = (name: string, limits: Any[]) =>
        sendBody(noRetry, "POST", path, { metadata: { name }, spec: { limits } }, "application/json", {
          dryRun: "All",
        });
      for (const [i, [what, limits, causes]] of INVALID.entries()) {
        const res = await post(`lr-invalid-${i}`, limits);
        assertCauses(res, causes, what);
      }
      const ok = await post("lr-valid", [
        { type: "Container", min: { cpu: "100m" }, max: { cpu: "3" }, maxLimitRequestRatio: { cpu: "7" } },
      ]);
      assert.equal(ok.code, 201, JSON.stringify(ok.json));
      assert.deepEqual(Object.keys(ok.json.spec.limits[0]), [
        "type",
        "max",
        "min",
        "default",
        "defaultRequest",
        "maxLimitRequestRatio",
      ]);
    },
  },
];
