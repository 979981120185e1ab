/**
 * The files `kubeop init` and `kubeop create api` write for one kind: controllers/<kind>/schema.ts (TypeBox spec and
 * status with conditions), controller.ts (a reconcile that owns one ConfigMap, sets Ready and records Events, with
 * its RBAC list), controller_test.ts (unit tests on the FakeCluster, one test against startFakeApiServer) and a sample
 * under deploy/samples/.
 * @module
 */

import type { KindNames } from "./names.ts";

/** controllers/<kind>/schema.ts. */
export function schemaTs(k: KindNames): string {
  const scoped = k.clusterScoped
    ? `
  targetNamespace: Type.String({
    minLength: 1,
    maxLength: 63,
    default: "default",
    description: "Namespace of the ConfigMap (${k.kind} is cluster-scoped).",
  }),`
    : "";
  return `/**
 * ${k.kind} (${k.group}/${k.version}): its spec and status as TypeBox schemas, from which the CRD is generated
 * (\`deno task manifests\` writes crds/). Add fields here; \`kubectl explain ${k.lower}.spec\` shows their descriptions.
 * @module
 */
import { type Static, Type } from "@sinclair/typebox";
import {
  type Condition,
  ConditionsSchema,
  crdFromSchema,
  type CustomResourceSchema,
  customResourceType,
  type KubeObject,
  type ResourceType,
} from "@kubeop/kubeop";

/** ${k.kind}.spec: what the user asks for. */
export const ${k.kind}SpecSchema = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 1024, description: "Copied into the child ConfigMap's data.message." }),${scoped}
});

/** ${k.kind}.status, written by the controller only. */
export const ${k.kind}StatusSchema = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0, description: "The generation last reconciled." })),
  conditions: Type.Optional(Type.Unsafe<Condition[]>(ConditionsSchema)),
});

/** A ${k.kind} object. */
export interface ${k.kind} extends KubeObject {
  /** Desired state. */
  spec: Static<typeof ${k.kind}SpecSchema>;
  /** Observed state (status subresource). */
  status?: Static<typeof ${k.kind}StatusSchema>;
}

/** The custom resource: group, names, scope and schemas. */
export const ${k.kind}Resource: CustomResourceSchema = {
  group: "${k.group}",
  version: "${k.version}",
  kind: "${k.kind}",
  plural: "${k.plural}",
  scope: "${k.clusterScoped ? "Cluster" : "Namespaced"}",
  spec: ${k.kind}SpecSchema,
  status: ${k.kind}StatusSchema,
  description: "A ${k.kind}: the controller keeps a ConfigMap holding its message.",
  printerColumns: [{ name: "Message", type: "string", jsonPath: ".spec.message" }],
};

/** How clients address ${k.plural}. */
export const ${k.kind}Type: ResourceType = customResourceType(${k.kind}Resource);

/** The CustomResourceDefinition of ${k.kind}. */
export function ${k.camel}Crd(): KubeObject {
  return crdFromSchema(${k.kind}Resource);
}
`;
}

/** controllers/<kind>/controller.ts. */
export function controllerTs(k: KindNames): string {
  const ns = k.clusterScoped ? `${k.camel}.spec.targetNamespace ?? "default"` : `${k.camel}.metadata.namespace!`;
  return `/**
 * The ${k.kind} controller: each ${k.kind} gets a ConfigMap of the same name holding spec.message, owned through a
 * controller ownerReference (the garbage collector deletes it with the ${k.kind}); status.conditions[Ready] and
 * Events tell \`kubectl get\`/\`kubectl describe\` readers what happened. {@link RBAC} lists every API call it makes:
 * \`deno task manifests\` turns it into deploy/rbac/.
 * @module
 */
import {
  type Action,
  type ConditionInput,
  Controller,
  CoreTypes,
  done,
  getControllerOf,
  type KubeObject,
  patchStatusIfChanged,
  type RbacRule,
  READ,
  type ReconcileContext,
  setCondition,
  setControllerReference,
} from "@kubeop/kubeop";
import { type ${k.kind}, ${k.kind}Type } from "./schema.ts";

/** The API calls this controller makes (the runtime's own, Events and Leases, are added by the generator). */
export const RBAC: readonly RbacRule[] = [
  { group: "${k.group}", resource: "${k.plural}", verbs: READ },
  { group: "${k.group}", resource: "${k.plural}/status", verbs: ["get", "patch"] },
  { group: "", resource: "configmaps", verbs: [...READ, "create", "update"] },
];

/** A ConfigMap as this controller writes it. */
export interface ConfigMapObject extends KubeObject {
  /** String data. */
  data?: Record<string, string>;
}

/** The controller: ${k.plural}, and the ConfigMaps they own. */
export function ${k.camel}Controller(): Controller<${k.kind}> {
  return new Controller<${k.kind}>({ name: "${k.lower}", for: ${k.kind}Type, reconcile: reconcile${k.kind} })
    .owns(CoreTypes.ConfigMap);
}

/** The ConfigMap a ${k.kind} wants. */
export function desiredConfigMap(${k.camel}: ${k.kind}): ConfigMapObject {
  return setControllerReference(${k.camel}, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: ${k.camel}.metadata.name,
      namespace: ${ns},
      labels: { "app.kubernetes.io/managed-by": "${k.lower}-controller" },
    },
    data: { message: ${k.camel}.spec.message },
  });
}

/** One reconcile: create or update the ConfigMap, then report Ready. Reads come from the cache. */
export async function reconcile${k.kind}(ctx: ReconcileContext<${k.kind}>): Promise<Action> {
  const ${k.camel} = ctx.object;
  if (!${k.camel}) return done(); // deleted: the garbage collector removes the ConfigMap
  const want = desiredConfigMap(${k.camel});
  const namespace = want.metadata.namespace!;
  const have = ctx.informers.get<ConfigMapObject>(CoreTypes.ConfigMap).store.get(\`\${namespace}/\${want.metadata.name}\`);
  const what = \`ConfigMap \${namespace}/\${want.metadata.name}\`;
  let ready: ConditionInput;
  if (!have) {
    await ctx.client.create(CoreTypes.ConfigMap, want, { namespace });
    ctx.recorder.event(${k.camel}, { type: "Normal", reason: "Created", action: "Create", note: \`created \${what}\` });
    ready = { type: "Ready", status: "True", reason: "Reconciled", message: \`\${what} holds the message\` };
  } else if (getControllerOf(have)?.uid !== ${k.camel}.metadata.uid) {
    const message = \`\${what} exists and is not ours\`;
    ctx.recorder.event(${k.camel}, { type: "Warning", reason: "ChildConflict", action: "Reconcile", note: message });
    ready = { type: "Ready", status: "False", reason: "ChildConflict", message };
  } else {
    if (have.data?.message !== want.data?.message) {
      await ctx.client.update(CoreTypes.ConfigMap, { ...have, data: want.data }, { namespace });
      ctx.recorder.event(${k.camel}, { type: "Normal", reason: "Updated", action: "Update", note: \`updated \${what}\` });
    }
    ready = { type: "Ready", status: "True", reason: "Reconciled", message: \`\${what} holds the message\` };
  }
  const generation = ${k.camel}.metadata.generation;
  const now = new Date(ctx.clock.now()).toISOString();
  await patchStatusIfChanged(ctx.client, ${k.kind}Type, ${k.camel}, {
    observedGeneration: generation,
    conditions: setCondition(${k.camel}.status?.conditions, { ...ready, observedGeneration: generation }, now),
  });
  return done(); // a change to the ConfigMap enqueues the ${k.kind} again (owns)
}
`;
}

/** deploy/samples/<group>_<version>_<kind>.yaml: what `kubectl apply -f` takes to try the kind. */
export function sampleYaml(k: KindNames): string {
  const ns = k.clusterScoped ? "" : "\n  namespace: default";
  const target = k.clusterScoped ? "\n  targetNamespace: default" : "";
  return `apiVersion: ${k.group}/${k.version}
kind: ${k.kind}
metadata:
  name: ${k.lower}-sample${ns}
spec:
  message: hello from ${k.lower}-sample${target}
`;
}

/** Path of a kind's sample, relative to the project. */
export function samplePath(k: KindNames): string {
  return `deploy/samples/${k.group.split(".")[0]}_${k.version}_${k.lower}.yaml`;
}
