/**
 * What kube-controller-manager puts in every namespace of a real cluster: the ServiceAccount `default`
 * (serviceaccount controller) and the ConfigMap `kube-root-ca.crt` with the cluster CA (root-ca-cert-publisher).
 * Opt-in (`defaultNamespaceObjects`), because tests that count objects in a namespace do not expect them.
 * @module
 */
import type { FakeStore } from "./commit_path.ts";
import type { StoredEvent } from "./object_storage.ts";

const SERVICE_ACCOUNTS = { group: "", version: "v1", plural: "serviceaccounts" };
const CONFIG_MAPS = { group: "", version: "v1", plural: "configmaps" };

/** Adds the default objects to every existing and future namespace; returns the unsubscribe function. */
export function startNamespaceDefaults(store: FakeStore, caPEM: string): () => void {
  const ensure = (namespace: string) => {
    const ns = store.objects.get("/namespaces", "", namespace);
    if (!ns || ns.metadata.deletionTimestamp) return;
    if (!store.objects.get("/serviceaccounts", namespace, "default")) {
      store.create(SERVICE_ACCOUNTS, { metadata: { name: "default", namespace } });
    }
    if (!store.objects.get("/configmaps", namespace, "kube-root-ca.crt")) {
      store.create(CONFIG_MAPS, {
        metadata: {
          name: "kube-root-ca.crt",
          namespace,
          annotations: { "kubernetes.io/description": ROOT_CA_DESCRIPTION },
        },
        data: { "ca.crt": caPEM },
      }, { fieldManager: "kube-controller-manager" });
    }
  };
  const guarded = (namespace: string) => {
    try {
      ensure(namespace);
    } catch {
      // Raced with a user create or the namespace's deletion: nothing to add.
    }
  };
  for (const ns of store.objects.list("/namespaces")) guarded(ns.metadata.name!);
  return store.objects.onCommit((ev: StoredEvent) => {
    if (ev.storageKey !== "/namespaces" || ev.type !== "ADDED") return;
    const name = ev.object.metadata.name!;
    queueMicrotask(() => guarded(name));
  });
}

const ROOT_CA_DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";
