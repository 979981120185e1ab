// The runtime's public CRD builder (runtime/crd_schema.ts) and the seed controllers' (controllers/schema_util.ts)
// must say the same thing about the same schemas, so the controllers can move onto the public one.
import assert from "node:assert/strict";
import { ConditionsSchema, crdFromSchema } from "../runtime/mod.ts";
import { AtResource } from "../controllers/at/schema.ts";
import { MachineResource, SwitchResource } from "../controllers/machine/schema.ts";
import { MultiSecretResource } from "../controllers/multisecret/schema.ts";
import { NetperfResource } from "../controllers/netperf/schema.ts";
import {
  ConditionsSchema as SeedConditionsSchema,
  customResourceDefinition,
  toOpenApi,
} from "../controllers/schema_util.ts";

/** The CRD fields compared here (KubeObject leaves them untyped). */
interface CrdShape {
  metadata: { name?: string };
  spec: {
    names: Record<string, unknown>;
    versions: {
      schema: { openAPIV3Schema: { properties: Record<string, unknown> } };
      additionalPrinterColumns: { name: string }[];
    }[];
  };
}
const shape = (crd: object) => crd as unknown as CrdShape;

const SEEDS = [AtResource, MachineResource, SwitchResource, MultiSecretResource, NetperfResource];

Deno.test("crdFromSchema emits the seed CRDs' spec and status schemas, names and printer columns", () => {
  for (const cr of SEEDS) {
    const seed = shape(customResourceDefinition(cr));
    const pub = shape(crdFromSchema(cr));
    const schema = (crd: CrdShape) => crd.spec.versions[0].schema.openAPIV3Schema;
    assert.equal(pub.metadata.name, seed.metadata.name);
    assert.deepEqual(schema(pub).properties.spec, schema(seed).properties.spec, `${cr.kind} spec`);
    assert.deepEqual(schema(pub).properties.status, schema(seed).properties.status, `${cr.kind} status`);
    assert.deepEqual(
      pub.spec.versions[0].additionalPrinterColumns.map((c) => c.name),
      seed.spec.versions[0].additionalPrinterColumns.map((c) => c.name),
      `${cr.kind} printer columns`,
    );
    const { categories: _, ...seedNames } = seed.spec.names;
    assert.deepEqual(pub.spec.names, seedNames, `${cr.kind} names`);
  }
});

Deno.test("ConditionsSchema is the seed controllers' metav1.Condition list", () => {
  assert.deepEqual(ConditionsSchema, toOpenApi(SeedConditionsSchema));
});
