/**
 * The namespace the process runs in, when it runs in a pod (client-go's in-cluster namespace lookup).
 * @module
 */

/** Where the kubelet mounts the pod's namespace with its service account token. */
export const SERVICE_ACCOUNT_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/** The pod's namespace from {@link SERVICE_ACCOUNT_NAMESPACE}; undefined outside a pod (or when the file is empty). */
export async function podNamespace(): Promise<string | undefined> {
  try {
    return (await Deno.readTextFile(SERVICE_ACCOUNT_NAMESPACE)).trim() || undefined;
  } catch {
    return undefined;
  }
}
