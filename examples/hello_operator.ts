// A complete operator on the kubeop runtime: every ConfigMap labelled greet=yes gets data.greeting.
import {
  type Action,
  Controller,
  CoreTypes,
  done,
  KubeClient,
  type KubeObject,
  loadClusterConfig,
  Manager,
} from "../runtime/mod.ts";

/** Builds the controller; the manager gives it a cache, a queue, metrics and Events. */
export function helloController(): Controller<KubeObject> {
  return new Controller<KubeObject>({
    name: "hello",
    for: CoreTypes.ConfigMap,
    forOptions: { labelSelector: "greet=yes" },
    async reconcile(ctx): Promise<Action> {
      const cm = ctx.object; // from the cache; undefined once deleted
      if (!cm || cm.data?.greeting === "hello") return done();
      await ctx.client.patch(CoreTypes.ConfigMap, ctx.name, { data: { greeting: "hello" } }, {
        namespace: ctx.namespace,
        type: "merge",
      });
      ctx.recorder.event(cm, { type: "Normal", reason: "Greeted", action: "Patch", note: "said hello" });
      return done();
    },
  });
}

if (import.meta.main) {
  const client = new KubeClient({ config: await loadClusterConfig() });
  const ac = new AbortController();
  Deno.addSignalListener("SIGINT", () => ac.abort());
  await new Manager({ client, healthProbeBindAddress: "127.0.0.1:8081" }).add(helloController()).start(ac.signal);
}
