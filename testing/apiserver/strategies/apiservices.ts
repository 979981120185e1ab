/**
 * apiregistration.k8s.io APIServices: names are path segments (`v1.example.com`), `insecureSkipTLSVerify` may not be
 * combined with a `caBundle`, and the status belongs to the availability check (testing/apiserver/apiservice_controller.ts):
 * a create drops any status sent, an update of the main resource keeps the stored one (status subresource).
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { validatePathSegmentName } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";

function validateApiService(obj: KubeObject, ctx: StrategyContext): StatusCause[] {
  if (ctx.subresource === "status") return [];
  const spec = obj.spec ?? {};
  if (spec.insecureSkipTLSVerify === true && spec.caBundle) {
    return [{
      reason: "FieldValueInvalid",
      message: "Invalid value: true: may not be true if caBundle is present",
      field: "spec.insecureSkipTLSVerify",
    }];
  }
  return [];
}

/** The strategy of apiregistration.k8s.io/v1 apiservices. */
export const APISERVICES: ResourceStrategy = {
  validateName: validatePathSegmentName,
  prepareForCreate(obj: KubeObject): void {
    delete obj.status;
  },
  validate: validateApiService,
  validateUpdate: (next, _old, ctx) => validateApiService(next, ctx),
};
