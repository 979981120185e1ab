/**
 * A tiny operator for subprocess tests of graceful shutdown: every ConfigMap labelled `slow=yes` gets the
 * annotation `started=<reconcileID>`, then (after {@link SLOW_RECONCILE_MS} on the injected clock, deliberately
 * NOT cut short by `ctx.signal`, to model work that finishes) `finished=<reconcileID>`. It runs with leader
 * election (Lease `slow-operator` in `default`) and stops on SIGTERM/SIGINT, exiting 0 after a clean shutdown.
 *
 * Usage: `deno run --allow-all tests/support/slow_operator.ts <kubeconfig-path>`
 * @module
 */
import { Controller } from "../../runtime/controller/controller.ts";
import { loadClusterConfig } from "../../runtime/client/kubeconfig.ts";
import { KubeClient } from "../../runtime/client/client.ts";
import { Manager } from "../../runtime/manager/manager.ts";
import { type Action, done } from "../../runtime/controller/reconcile.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";

/** How long one reconcile "works" between the `started` and `finished` annotations. */
export const SLOW_RECONCILE_MS = 1_500;

/** The Lease the operator campaigns for (namespace `default`). */
export const SLOW_OPERATOR_LEASE = "slow-operator";

/** Builds the controller: annotate `started`, work {@link SLOW_RECONCILE_MS} without honouring ctx.signal, annotate `finished`. */
export function slowController(): Controller<KubeObject> {
  return new Controller<KubeObject>({
    name: "slow",
    for: CoreTypes.ConfigMap,
    forOptions: { labelSelector: "slow=yes" },
    async reconcile(ctx): Promise<Action> {
      const cm = ctx.object;
      if (!cm || cm.metadata.annotations?.finished) return done();
      const annotate = async (annotations: Record<string, string>) => {
        const written = await ctx.client.patch(CoreTypes.ConfigMap, ctx.name, { metadata: { annotations } }, {
          namespace: ctx.namespace,
          type: "merge",
        });
        ctx.expectWrite(CoreTypes.ConfigMap, written);
      };
      await annotate({ started: ctx.reconcileID });
      await ctx.clock.sleep(SLOW_RECONCILE_MS); // no ctx.signal on purpose: this work always completes
      await annotate({ finished: ctx.reconcileID });
      return done();
    },
  });
}

if (import.meta.main) {
  const kubeconfig = Deno.args[0];
  if (!kubeconfig) {
    console.error("usage: slow_operator.ts <kubeconfig-path>");
    Deno.exit(2);
  }
  const client = new KubeClient({ config: await loadClusterConfig({ kubeconfig }) });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  for (const sig of ["SIGTERM", "SIGINT"] as const) Deno.addSignalListener(sig, onSignal);
  await new Manager({
    client,
    leaderElection: { id: SLOW_OPERATOR_LEASE, namespace: "default", identity: `slow-${Deno.pid}` },
  }).add(slowController()).start(stop.signal);
  for (const sig of ["SIGTERM", "SIGINT"] as const) Deno.removeSignalListener(sig, onSignal);
  Deno.exit(0);
}
