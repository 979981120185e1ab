/** `kubeop crds` (being built). */
export function crdsCommand(_args: string[]): Promise<number> {
  console.error("kubeop crds: not implemented yet");
  return Promise.resolve(1);
}
