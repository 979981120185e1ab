// An operator for a custom resource on the kubeop runtime: a Website (examples.kubeop.dev/v1alpha1) becomes a
// ConfigMap holding its page and a Deployment serving it. The CRD comes from the TypeBox schemas below; the children
// carry controller ownerReferences (the garbage collector deletes them with the Website); a finalizer removes the
// Website's entry from a registry ConfigMap in another namespace, which ownerReferences cannot reach; status
// conditions (Ready, Progressing, Degraded) and observedGeneration go through the status subresource; Events tell
// `kubectl describe` readers what happened.
import { type Static, Type } from "@sinclair/typebox";
import {
  type Action,
  addFinalizer,
  type Condition,
  ConditionsSchema,
  Controller,
  CoreTypes,
  crdFromSchema,
  type CustomResourceSchema,
  customResourceType,
  done,
  getControllerOf,
  isAlreadyExists,
  isNotFound,
  KubeClient,
  type KubeObject,
  loadClusterConfig,
  Manager,
  patchStatusIfChanged,
  type ReconcileContext,
  removeFinalizer,
  type ResourceType,
  setCondition,
  setControllerReference,
} from "../runtime/mod.ts";

/** Website.spec: what to serve and how many replicas serve it. */
export const WebsiteSpecSchema = Type.Object({
  image: Type.String({ minLength: 1, description: "Container image of the web server, e.g. nginx:1.27." }),
  replicas: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, default: 1, description: "Serving Pods." })),
  message: Type.Optional(Type.String({ maxLength: 4096, default: "", description: "The page, served as index.html." })),
});

/** Website.status, written by the controller only. */
export const WebsiteStatusSchema = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0, description: "The generation last reconciled." })),
  availableReplicas: Type.Optional(Type.Integer({ minimum: 0, description: "Available Pods of the Deployment." })),
  conditions: Type.Optional(Type.Unsafe<Condition[]>(ConditionsSchema)),
});

/** A Website object. */
export interface Website extends KubeObject {
  /** Desired state. */
  spec: Static<typeof WebsiteSpecSchema>;
  /** Observed state (status subresource). */
  status?: Static<typeof WebsiteStatusSchema>;
}

/** The custom resource: group, names and schemas. */
export const WebsiteResource: CustomResourceSchema = {
  group: "examples.kubeop.dev",
  version: "v1alpha1",
  kind: "Website",
  plural: "websites",
  shortNames: ["site"],
  spec: WebsiteSpecSchema,
  status: WebsiteStatusSchema,
  description: "A static web page served by a Deployment.",
  printerColumns: [
    { name: "Image", type: "string", jsonPath: ".spec.image" },
    { name: "Available", type: "integer", jsonPath: ".status.availableReplicas" },
  ],
};

/** How clients address Websites. */
export const WebsiteType: ResourceType = customResourceType(WebsiteResource);
/** apps/v1 Deployments. */
export const DeploymentType: ResourceType = {
  group: "apps",
  version: "v1",
  plural: "deployments",
  kind: "Deployment",
  namespaced: true,
};
/** The finalizer that removes the registry entry before the Website goes. */
export const FINALIZER = "examples.kubeop.dev/registry";
/** The registry ConfigMap's name (one data key per Website: `<namespace>.<name>` → image). */
export const REGISTRY_NAME = "websites";
/** Pod template annotation carrying a hash of the page, so a new page rolls the Pods. */
export const CONTENT_HASH = "examples.kubeop.dev/content-hash";

/** The CustomResourceDefinition to install before the controller starts. */
export function websiteCrd(): KubeObject {
  return crdFromSchema(WebsiteResource);
}

/** A ConfigMap as this controller reads it. */
export interface ConfigMapObject extends KubeObject {
  /** String data. */
  data?: Record<string, string>;
}

/** The parts of a Deployment this controller sets and reads. */
export interface DeploymentObject extends KubeObject {
  /** apps/v1 DeploymentSpec (the fields used here). */
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec: { containers: { name: string; image?: string; [field: string]: unknown }[]; [field: string]: unknown };
    };
    [field: string]: unknown;
  };
  /** apps/v1 DeploymentStatus (the fields used here). */
  status?: { observedGeneration?: number; updatedReplicas?: number; availableReplicas?: number };
}

/** Options of {@link websiteController} and {@link reconcileWebsite}. */
export interface WebsiteOptions {
  /** Namespace of the registry ConfigMap (must exist). Default `kubeop-system`. */
  registryNamespace?: string;
}

/** The controller: Websites, and the ConfigMaps and Deployments they own. */
export function websiteController(opts: WebsiteOptions = {}): Controller<Website> {
  return new Controller<Website>({
    name: "website",
    for: WebsiteType,
    reconcile: (ctx) => reconcileWebsite(ctx, opts),
  }).owns(CoreTypes.ConfigMap).owns(DeploymentType);
}

/** One reconcile of a Website: finalizer, children, registry entry, status. */
export async function reconcileWebsite(ctx: ReconcileContext<Website>, opts: WebsiteOptions = {}): Promise<Action> {
  const registryNamespace = opts.registryNamespace ?? "kubeop-system";
  let site = ctx.object;
  if (!site) return done(); // gone: the garbage collector deletes the children through their ownerReferences
  if (site.metadata.deletionTimestamp) return await finalize(ctx, site, registryNamespace);
  const withFinalizer = addFinalizer(site, FINALIZER);
  if (withFinalizer) {
    site = await ctx.client.patch<Website>(WebsiteType, ctx.name, withFinalizer.patch, {
      namespace: ctx.namespace,
      type: "merge",
    });
  }

  const page = await ensureChild(ctx, site, CoreTypes.ConfigMap, desiredConfigMap(site), {
    upToDate: (have, want) => have.data?.["index.html"] === want.data?.["index.html"],
    update: (have, want) => ({ ...have, data: want.data }),
  });
  const deployment = await ensureChild(ctx, site, DeploymentType, desiredDeployment(site), {
    upToDate: (have, want) =>
      have.spec.replicas === want.spec.replicas && image(have) === image(want) && hash(have) === hash(want),
    update: (have, want) => withTemplate(have, want),
  });
  await register(ctx, site, registryNamespace);

  const generation = site.metadata.generation;
  const now = new Date(ctx.clock.now()).toISOString();
  const set = (list: typeof conditions, type: string, status: "True" | "False", reason: string, message: string) =>
    setCondition(list, { type, status, reason, message, observedGeneration: generation }, now);
  let conditions = site.status?.conditions;
  const replicas = site.spec.replicas ?? 1;
  const available = deployment?.status?.availableReplicas ?? 0;
  if (!page || !deployment) {
    const message = `a ${page ? "Deployment" : "ConfigMap"} named ${site.metadata.name} exists and is not ours`;
    conditions = set(conditions, "Ready", "False", "ChildConflict", message);
    conditions = set(conditions, "Progressing", "False", "ChildConflict", message);
    conditions = set(conditions, "Degraded", "True", "ChildConflict", message);
    ctx.recorder.event(site, { type: "Warning", reason: "ChildConflict", action: "Reconcile", note: message });
  } else if (rolledOut(deployment, replicas)) {
    const message = `${available}/${replicas} replicas available`;
    conditions = set(conditions, "Ready", "True", "Available", message);
    conditions = set(conditions, "Progressing", "False", "RolloutComplete", message);
    conditions = set(conditions, "Degraded", "False", "AsExpected", "");
  } else {
    const message = `${available}/${replicas} replicas available`;
    conditions = set(conditions, "Ready", "False", "RollingOut", message);
    conditions = set(conditions, "Progressing", "True", "RollingOut", message);
    conditions = set(conditions, "Degraded", "False", "AsExpected", "");
  }
  await patchStatusIfChanged(ctx.client, WebsiteType, site, {
    observedGeneration: generation,
    availableReplicas: available,
    conditions,
  });
  return done(); // the Deployment's status changes enqueue the Website again (owns)
}

/** Deletion: remove what ownerReferences cannot reach (the registry entry), then let the Website go. */
async function finalize(ctx: ReconcileContext<Website>, site: Website, registryNamespace: string): Promise<Action> {
  const without = removeFinalizer(site, FINALIZER);
  if (!without) return done();
  try {
    await ctx.client.patch(CoreTypes.ConfigMap, REGISTRY_NAME, { data: { [registryKey(site)]: null } }, {
      namespace: registryNamespace,
      type: "merge",
    });
  } catch (err) {
    if (!isNotFound(err)) throw err; // no registry: nothing to remove
  }
  ctx.recorder.event(site, {
    type: "Normal",
    reason: "Unregistered",
    action: "Finalize",
    note: `removed from ${registryNamespace}/${REGISTRY_NAME}`,
  });
  await ctx.client.patch(WebsiteType, ctx.name, without.patch, { namespace: ctx.namespace, type: "merge" });
  return done();
}

/** How to compare and update one kind of child. */
interface ChildRules<T extends KubeObject> {
  /** Whether the existing child already says what `want` says. */
  upToDate(have: T, want: T): boolean;
  /** The existing child with `want`'s fields (keeps the server's defaults and resourceVersion). */
  update(have: T, want: T): T;
}

/**
 * Creates or updates one child owned by `site`; undefined when an object of that name belongs to someone else
 * (left alone). Reads come from the cache; the runtime makes the next reconcile wait until it shows our writes.
 */
async function ensureChild<T extends KubeObject>(
  ctx: ReconcileContext<Website>,
  site: Website,
  rt: ResourceType,
  desired: T,
  rules: ChildRules<T>,
): Promise<T | undefined> {
  const want = setControllerReference(site, desired);
  const have = ctx.informers.get<T>(rt).store.get(`${ctx.namespace}/${desired.metadata.name}`);
  const what = `${rt.kind} ${desired.metadata.name}`;
  if (!have) {
    const created = await ctx.client.create<T>(rt, want, { namespace: ctx.namespace });
    ctx.recorder.event(site, { type: "Normal", reason: "Created", action: "Create", note: `created ${what}` });
    return created;
  }
  if (getControllerOf(have)?.uid !== site.metadata.uid) return undefined;
  if (rules.upToDate(have, want)) return have;
  const updated = await ctx.client.update<T>(rt, rules.update(have, want), { namespace: ctx.namespace });
  ctx.recorder.event(site, { type: "Normal", reason: "Updated", action: "Update", note: `updated ${what}` });
  return updated;
}

/** Adds the Website to the registry ConfigMap in `registryNamespace` (created on first use). */
async function register(ctx: ReconcileContext<Website>, site: Website, registryNamespace: string): Promise<void> {
  const key = registryKey(site);
  const registry = ctx.informers.get<ConfigMapObject>(CoreTypes.ConfigMap).store.get(
    `${registryNamespace}/${REGISTRY_NAME}`,
  );
  if (registry?.data?.[key] === site.spec.image) return;
  const entry = { data: { [key]: site.spec.image } };
  try {
    if (!registry) {
      await ctx.client.create(CoreTypes.ConfigMap, {
        metadata: { name: REGISTRY_NAME, namespace: registryNamespace },
        ...entry,
      }, { namespace: registryNamespace });
    } else {
      await ctx.client.patch(CoreTypes.ConfigMap, REGISTRY_NAME, entry, {
        namespace: registryNamespace,
        type: "merge",
      });
    }
  } catch (err) {
    if (!isAlreadyExists(err)) throw err; // created meanwhile (the cache lagged): add the key to it
    await ctx.client.patch(CoreTypes.ConfigMap, REGISTRY_NAME, entry, { namespace: registryNamespace, type: "merge" });
  }
  ctx.recorder.event(site, {
    type: "Normal",
    reason: "Registered",
    action: "Register",
    note: `listed in ${registryNamespace}/${REGISTRY_NAME}`,
  });
}

/** The registry's data key for `site` (a valid ConfigMap key: namespaces and names are DNS labels/subdomains). */
export function registryKey(site: KubeObject): string {
  return `${site.metadata.namespace}.${site.metadata.name}`;
}

function labelsOf(site: Website): Record<string, string> {
  return { "app.kubernetes.io/name": "website", "app.kubernetes.io/instance": site.metadata.name! };
}

/** The ConfigMap holding the page. */
export function desiredConfigMap(site: Website): ConfigMapObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: site.metadata.name, namespace: site.metadata.namespace, labels: labelsOf(site) },
    data: { "index.html": site.spec.message ?? "" },
  };
}

/** The Deployment serving the page (nginx layout: the ConfigMap mounted at /usr/share/nginx/html). */
export function desiredDeployment(site: Website): DeploymentObject {
  const labels = labelsOf(site);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: site.metadata.name, namespace: site.metadata.namespace, labels },
    spec: {
      replicas: site.spec.replicas ?? 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: { [CONTENT_HASH]: fnv1a(site.spec.message ?? "") } },
        spec: {
          containers: [{
            name: "web",
            image: site.spec.image,
            ports: [{ containerPort: 80 }],
            volumeMounts: [{ name: "page", mountPath: "/usr/share/nginx/html", readOnly: true }],
          }],
          volumes: [{ name: "page", configMap: { name: site.metadata.name } }],
        },
      },
    },
  };
}

function image(d: DeploymentObject): string | undefined {
  return d.spec.template.spec.containers.find((c) => c.name === "web")?.image;
}

function hash(d: DeploymentObject): string | undefined {
  return d.spec.template.metadata?.annotations?.[CONTENT_HASH];
}

/** `have` with `want`'s replicas, image and page hash; everything else (server defaults) stays. */
function withTemplate(have: DeploymentObject, want: DeploymentObject): DeploymentObject {
  const template = have.spec.template;
  return {
    ...have,
    spec: {
      ...have.spec,
      replicas: want.spec.replicas,
      template: {
        ...template,
        metadata: {
          ...template.metadata,
          annotations: { ...template.metadata?.annotations, [CONTENT_HASH]: hash(want)! },
        },
        spec: {
          ...template.spec,
          containers: template.spec.containers.map((c) => c.name === "web" ? { ...c, image: image(want) } : c),
        },
      },
    },
  };
}

/** Whether the Deployment controller has rolled out the current template to `replicas` available Pods. */
function rolledOut(d: DeploymentObject, replicas: number): boolean {
  const s = d.status ?? {};
  return (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 1) && (s.updatedReplicas ?? 0) >= replicas &&
    (s.availableReplicas ?? 0) >= replicas;
}

/** 32-bit FNV-1a of `text`, hex: a short, stable content hash. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

if (import.meta.main) {
  if (Deno.args.includes("--print-crd")) {
    // Install the CRD first: `deno run examples/website_operator.ts --print-crd | kubectl apply -f -`.
    console.log(JSON.stringify(websiteCrd(), null, 2));
  } else {
    const client = new KubeClient({ config: await loadClusterConfig() });
    const ac = new AbortController();
    Deno.addSignalListener("SIGINT", () => ac.abort());
    await new Manager({ client }).add(websiteController()).start(ac.signal);
  }
}
