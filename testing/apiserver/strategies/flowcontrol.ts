/**
 * flowcontrol.apiserver.k8s.io FlowSchemas (pkg/registry/flowcontrol/flowschema/strategy.go): a write through the
 * status subresource keeps the stored metadata; the status itself is the APF consumer's (flowschema_status.ts).
 * @module
 */
import type { ResourceStrategy } from "../strategy.ts";
import { keepMetadataOnStatusWrite } from "./status_metadata.ts";

/** The strategy of flowcontrol.apiserver.k8s.io/v1 flowschemas. */
export const FLOW_SCHEMAS: ResourceStrategy = {
  prepareForUpdate: keepMetadataOnStatusWrite,
};
