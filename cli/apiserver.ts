/** `kubeop apiserver` (being built). */
export function apiserverCommand(_args: string[]): Promise<number> {
  console.error("kubeop apiserver: not implemented yet");
  return Promise.resolve(1);
}
